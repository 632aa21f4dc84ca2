// torchlint-test: libtorch>=2 twin-of autocast_wrong_device
// torch-autocast-wrong-device with the names of libtorch 2.4 and later,
// which take the device type: set_autocast_enabled(at::kCUDA, true) opens a
// CUDA region, set_autocast_enabled(at::kCPU, true) a CPU one. The cases are
// those of autocast_wrong_device.cpp, and a region whose device is a value.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <iostream>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(64, 128))),
        fc2(register_module("fc2", torch::nn::Linear(128, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    return fc2(torch::relu(fc1(x)));
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

torch::Device gpu_or_cpu() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                     : torch::Device(torch::kCPU);
}

// --- positives -------------------------------------------------------------

void model_never_moved() {
  torch::NoGradGuard no_grad;
  Net model;
  at::autocast::set_autocast_enabled(at::kCUDA, true); // expect: torch-autocast-wrong-device
  auto out = model(torch::randn({32, 64}));
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  std::cout << out.sizes() << "\n";
}

void forward_of_a_model_never_moved() {
  torch::NoGradGuard no_grad;
  Net model;
  at::autocast::set_autocast_enabled(at::kCUDA, true); // expect: torch-autocast-wrong-device
  auto out = model->forward(torch::randn({32, 64}));
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  std::cout << out.sizes() << "\n";
}

void sequential_on_the_cpu() {
  torch::NoGradGuard no_grad;
  torch::nn::Sequential model(torch::nn::Linear(64, 128), torch::nn::ReLU(),
                              torch::nn::Linear(128, 10));
  at::autocast::set_autocast_enabled(at::kCUDA, true); // expect: torch-autocast-wrong-device
  auto out = model->forward(torch::randn({32, 64}));
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  std::cout << out.sizes() << "\n";
}

void cpu_model_passed_in(Net &model) {
  torch::NoGradGuard no_grad;
  at::autocast::set_autocast_enabled(at::kCUDA, true); // expect: torch-autocast-wrong-device
  auto out = model(torch::randn({32, 64}));
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  std::cout << out.sizes() << "\n";
}

void training_on_the_cpu() {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_autocast_enabled(at::kCUDA, true); // expect: torch-autocast-wrong-device
    auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64})), // expect: torch-module-never-moved
                                          torch::randint(10, {32}));
    at::autocast::set_autocast_enabled(at::kCUDA, false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

void cpu_autocast_on_the_gpu(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  at::autocast::set_autocast_enabled(at::kCPU, true); // expect: torch-autocast-wrong-device
  auto out = model(torch::randn({32, 64}, device));
  at::autocast::set_autocast_enabled(at::kCPU, false);
  std::cout << out.sizes() << "\n";
}

void cpu_autocast_after_moving(torch::Device device) {
  torch::NoGradGuard no_grad;
  Net model;
  model->to(device);
  at::autocast::set_autocast_enabled(at::kCPU, true); // expect: torch-autocast-wrong-device
  auto out = model(torch::randn({32, 64}, device));
  at::autocast::set_autocast_enabled(at::kCPU, false);
  std::cout << out.sizes() << "\n";
}

void cuda_turned_off_cpu_on(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(at::kCPU, true); // expect: torch-autocast-wrong-device
  auto out = model(torch::randn({32, 64}, device));
  at::autocast::set_autocast_enabled(at::kCPU, false);
  std::cout << out.sizes() << "\n";
}

void cpu_training_loop_on_the_gpu(torch::Device device) {
  Net model;
  model->to(device);
  torch::optim::Adam optimizer(model->parameters());
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_autocast_enabled(at::kCPU, true); // expect: torch-autocast-wrong-device
    auto loss = torch::cross_entropy_loss(
        model(torch::randn({32, 64}, device)), torch::randint(10, {32}, device));
    at::autocast::set_autocast_enabled(at::kCPU, false);
    loss.backward();
    optimizer.step();
  }
}

// --- negatives -------------------------------------------------------------

void cuda_autocast_on_the_gpu(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto out = model(torch::randn({32, 64}, device));
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  std::cout << out.sizes() << "\n";
}

void cpu_autocast_on_the_cpu() {
  torch::NoGradGuard no_grad;
  Net model;
  at::autocast::set_autocast_enabled(at::kCPU, true);
  auto out = model(torch::randn({32, 64}));
  at::autocast::set_autocast_enabled(at::kCPU, false);
  std::cout << out.sizes() << "\n";
}

void both_devices_on(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  at::autocast::set_autocast_enabled(at::kCPU, true);
  auto out = model(torch::randn({32, 64}, device));
  at::autocast::set_autocast_enabled(at::kCPU, false);
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  std::cout << out.sizes() << "\n";
}

// Called from another unit: where the model is is not known here.
void device_not_known(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  at::autocast::set_autocast_enabled(at::kCPU, true);
  auto out = model(input);
  at::autocast::set_autocast_enabled(at::kCPU, false);
  std::cout << out.sizes() << "\n";
}

void device_by_path(bool use_gpu) {
  torch::NoGradGuard no_grad;
  Net model;
  if (use_gpu)
    model->to(gpu_or_cpu());
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto input = torch::randn({32, 64}, model->parameters()[0].device());
  auto out = model(input);
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  std::cout << out.sizes() << "\n";
}

void turned_off_before_the_cpu_model() {
  torch::NoGradGuard no_grad;
  Net model;
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  auto out = model(torch::randn({32, 64}));
  std::cout << out.sizes() << "\n";
}

void region_in_another_branch(Net &model, torch::Device device, bool amp) {
  torch::NoGradGuard no_grad;
  if (amp) {
    at::autocast::set_autocast_enabled(at::kCPU, true);
    at::autocast::set_autocast_enabled(at::kCPU, false);
  }
  auto out = model(torch::randn({32, 64}, device));
  std::cout << out.sizes() << "\n";
}

void correct_mixed_precision(Net &model, torch::optim::Optimizer &optimizer,
                             torch::Device device) {
  at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_autocast_enabled(at::kCUDA, true);
    auto loss = torch::cross_entropy_loss(
        model(torch::randn({32, 64}, device)), torch::randint(10, {32}, device));
    at::autocast::set_autocast_enabled(at::kCUDA, false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

void device_type_chosen_at_run_time(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  at::autocast::set_autocast_enabled(device.type(), true);
  auto out = model(torch::randn({32, 64}, device));
  at::autocast::set_autocast_enabled(device.type(), false);
  at::autocast::clear_cache();
  std::cout << out.sizes() << "\n";
}

int main() {
  torch::Device device = gpu_or_cpu();
  if (!torch::cuda::is_available()) {
    std::cerr << "this program needs a GPU\n";
    return 1;
  }
  Net on_cpu;
  Net on_gpu;
  on_gpu->to(device);
  torch::optim::SGD optimizer(on_gpu->parameters(), 0.01);
  model_never_moved();
  forward_of_a_model_never_moved();
  sequential_on_the_cpu();
  cpu_model_passed_in(on_cpu);
  training_on_the_cpu();
  cpu_autocast_on_the_gpu(on_gpu, device);
  cpu_autocast_after_moving(device);
  cuda_turned_off_cpu_on(on_gpu, device);
  cpu_training_loop_on_the_gpu(device);
  cuda_autocast_on_the_gpu(on_gpu, device);
  cpu_autocast_on_the_cpu();
  both_devices_on(on_gpu, device);
  device_by_path(false);
  turned_off_before_the_cpu_model();
  region_in_another_branch(on_gpu, device, true);
  correct_mixed_precision(on_gpu, optimizer, device);
  device_type_chosen_at_run_time(on_gpu, device);
  return 0;
}
