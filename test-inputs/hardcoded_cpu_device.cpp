// torch-hardcoded-cpu-device: a model, or what it is fed, placed on a device
// written out as the CPU. The CPU branch of an availability check and results
// brought back to the host are fine.
#include <torch/torch.h>

#include <iostream>
#include <string>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    conv = register_module("conv", torch::nn::Conv2d(
                                       torch::nn::Conv2dOptions(1, 8, 3)));
    fc = register_module("fc", torch::nn::Linear(8 * 26 * 26, 10));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv->forward(x));
    return fc->forward(x.flatten(1));
  }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

torch::Tensor batch() { return torch::rand({16, 1, 28, 28}); }

void device_variable_is_cpu() {
  torch::Device device(torch::kCPU); // expect: torch-hardcoded-cpu-device [warning] "module 'model' is placed on a hard-coded CPU"
  Net model;
  model->to(device);
  auto out = model->forward(batch().to(device)); // expect: torch-eval-without-no-grad [warning] "'model' runs forward for inference while autograd records"
}

void device_from_string() {
  torch::Device device("cpu"); // expect: torch-hardcoded-cpu-device
  Net model;
  model->to(device);
  model->forward(batch().to(device)).sum().backward();
}

void device_type_variable() {
  auto device = torch::kCPU; // expect: torch-hardcoded-cpu-device
  Net model;
  model->to(device);
  model->forward(batch()); // expect: torch-eval-without-no-grad
}

void device_constructed_then_copied() {
  torch::Device device = torch::Device(torch::kCPU); // expect: torch-hardcoded-cpu-device
  Net model;
  model->to(device);
  model->forward(batch().to(device)); // expect: torch-eval-without-no-grad
}

void enumerator_spelling() {
  torch::Device device(torch::DeviceType::CPU); // expect: torch-hardcoded-cpu-device
  Net model;
  model->to(device);
  model->forward(batch()); // expect: torch-eval-without-no-grad
}

void moved_to_cpu_literal() {
  Net model;
  model->to(torch::kCPU); // expect: torch-hardcoded-cpu-device
  for (int step = 0; step < 10; ++step)
    model->forward(batch()).mean().backward();
}

// The module stays where it was created; its input is sent to the CPU.
void input_sent_to_cpu(const torch::Tensor &features) {
  Net model;
  auto out = model->forward(features.to(torch::kCPU)); // expect: torch-hardcoded-cpu-device, torch-eval-without-no-grad
}

void input_created_on_cpu() {
  Net model;
  auto x = torch::rand({4, 1, 28, 28},
                       torch::TensorOptions().device(torch::kCPU)); // expect: torch-hardcoded-cpu-device
  model->forward(x); // expect: torch-eval-without-no-grad
}

void input_copied_to_cpu(const torch::Tensor &features) {
  Net model;
  model->forward(features.cpu()); // expect: torch-hardcoded-cpu-device, torch-eval-without-no-grad
}

const torch::Device kTrainingDevice(torch::kCPU); // expect: torch-hardcoded-cpu-device

void global_device() {
  Net model;
  model->to(kTrainingDevice);
  model->forward(batch()); // expect: torch-eval-without-no-grad
}

void train_on(Net &model, torch::Device device) {
  model->to(device);
  model->forward(batch().to(device)); // expect: torch-eval-without-no-grad
}

void device_passed_to_helper() {
  Net model;
  train_on(model, torch::Device(torch::kCPU)); // expect: torch-hardcoded-cpu-device
}

// Correct: the CPU only when no GPU is there.
void chosen_by_availability() {
  torch::Device device = torch::cuda::is_available()
                             ? torch::Device(torch::kCUDA)
                             : torch::Device(torch::kCPU);
  Net model;
  model->to(device); // expect: torch-cudnn-benchmark-off [note] "'model' runs convolutions on the GPU with cuDNN's"
  model->forward(batch().to(device)); // expect: torch-eval-without-no-grad
}

void upgraded_when_available() {
  torch::Device device(torch::kCPU);
  if (torch::cuda::is_available())
    device = torch::Device(torch::kCUDA);
  Net model;
  model->to(device); // expect: torch-cudnn-benchmark-off
  model->forward(batch().to(device)); // expect: torch-eval-without-no-grad
}

void fallback_branch() {
  torch::Device device(torch::kCUDA, 0);
  if (!torch::cuda::is_available()) {
    std::cerr << "no GPU, training on the CPU\n";
    device = torch::Device(torch::kCPU);
  }
  Net model;
  model->to(device); // expect: torch-cudnn-benchmark-off
  model->forward(batch().to(device)); // expect: torch-eval-without-no-grad
}

// Correct: the user chooses, the code does not hard-code.
void user_choice(bool use_gpu) {
  torch::Device device(use_gpu ? torch::kCUDA : torch::kCPU); // expect: torch-unchecked-cuda [warning] "'torch::kCUDA' is used without checking 'torch::cuda::is_available()' first, so on a machine without" // expect-note: "check 'torch::cuda::is_available()' and fall back to the"
  Net model;
  model->to(device); // expect: torch-cudnn-benchmark-off
  model->forward(batch().to(device)); // expect: torch-eval-without-no-grad
}

// Correct: results come back to the host to be printed, saved and read.
void results_to_host() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Net model;
  model->to(device); // expect: torch-cudnn-benchmark-off
  auto out = model->forward(batch().to(device)); // expect: torch-eval-without-no-grad
  std::cout << out.cpu() << "\n";
  torch::save(out.to(torch::kCPU), "out.pt");
  float first = out.to(torch::kCPU).flatten()[0].item<float>();
  auto host = out.to(torch::Device("cpu"));
  std::cout << first << host.sizes() << "\n";
}

// Correct: the trained model goes to the CPU to be saved, and never runs
// there.
void model_saved_from_cpu() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Net model;
  model->to(device); // expect: torch-cudnn-benchmark-off
  model->forward(batch().to(device)).sum().backward();
  model->to(torch::kCPU);
  torch::save(model, "model.pt");
}

// Correct: a CPU tensor that never reaches a model.
void metrics_on_cpu() {
  auto counts = torch::zeros({10}, torch::TensorOptions().device(torch::kCPU));
  counts[3] += 1;
  std::cout << counts << "\n";
}

// Correct: staged on the CPU, then moved before the model sees it.
void staged_then_moved() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Net model;
  model->to(device); // expect: torch-cudnn-benchmark-off
  auto staging = torch::empty({16, 1, 28, 28},
                              torch::TensorOptions().device(torch::kCPU));
  staging.copy_(batch());
  model->forward(staging.to(device)); // expect: torch-eval-without-no-grad
}

// Correct: a CPU-only program that never names a device.
void never_names_a_device() {
  Net model;
  model->forward(batch()).sum().backward();
}

int main(int argc, char **argv) {
  device_variable_is_cpu();
  device_from_string();
  device_type_variable();
  device_constructed_then_copied();
  enumerator_spelling();
  moved_to_cpu_literal();
  input_sent_to_cpu(batch());
  input_created_on_cpu();
  input_copied_to_cpu(batch());
  global_device();
  device_passed_to_helper();
  chosen_by_availability();
  upgraded_when_available();
  fallback_branch();
  user_choice(argc > 1);
  results_to_host();
  model_saved_from_cpu();
  metrics_on_cpu();
  staged_then_moved();
  never_names_a_device();
}
