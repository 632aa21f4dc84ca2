// torch-cpu-tensor-then-moved: tensors that a factory fills on the CPU only
// for them to be copied to the GPU, on every step. Tensors made once (start-up
// work of microseconds), tensors used on the host first, host data wrapped or
// copied into a tensor, and moves to the CPU are fine.
#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <vector>

struct DenoiserImpl : torch::nn::Module {
  DenoiserImpl() { fc = register_module("fc", torch::nn::Linear(16, 16)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Denoiser);

torch::Tensor noise_for(int64_t batch, torch::Device device) {
  return torch::randn({batch, 16}).to(device); // expect: torch-cpu-tensor-then-moved [warning] "tensor created on the CPU by 'torch::randn' only to be copied to the GPU on every iteration, which costs a fill on" // expect-note: "create it on the GPU: give 'torch::randn'"
}

void fill_on_host(torch::Tensor &t) { t.fill_(1); }

void train(Denoiser &model, torch::Device device, int64_t steps) {
  torch::optim::Adam optimizer(model->parameters(), 1e-3);
  auto weights = torch::ones({16}).to(device);
  for (int64_t step = 0; step < steps; ++step) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs Linear layers in plain float32, with neither autocast nor TF32, so the GPU's tensor cores," // expect-note: "consider bfloat16 autocast around the forward pass"
    auto clean = torch::rand({32, 16}, torch::TensorOptions().device(device));
    auto noise = torch::randn({32, 16}).to(device); // expect: torch-cpu-tensor-then-moved
    auto mask = torch::ones({32, 16}); // expect: torch-cpu-tensor-then-moved
    auto bias = torch::zeros({32, 1}); // expect: torch-cpu-tensor-then-moved
    bias = bias.to(device);
    auto scale = torch::full({32, 16}, 0.5, torch::TensorOptions().dtype(torch::kFloat32)).to(device); // expect: torch-cpu-tensor-then-moved
    auto offsets = torch::arange(0, 16, torch::kLong).to(device); // expect: torch-cpu-tensor-then-moved
    auto jitter = torch::zeros_like(clean).to(device);
    auto half = torch::rand({32, 16}).to(device, torch::kFloat32); // expect: torch-cpu-tensor-then-moved
    auto input = (clean + noise_for(32, device) + jitter) * mask.to(device) * scale + bias + half;
    auto loss = torch::mse_loss(model->forward(input) * weights, clean) +
                offsets.sum().to(torch::kFloat) * 0;
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
}

void evaluate(Denoiser &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  auto identity = torch::eye(16).to(device);
  auto ramp = torch::linspace(0, 1, 16).to(device);
  std::cout << model->forward(identity * ramp).sum().item<float>()
            << "\n";
}

void cuda_call(Denoiser &model) {
  if (!torch::cuda::is_available())
    return;
  for (int step = 0; step < 3; ++step) {
    auto x = torch::rand({8, 16}).cuda(); // expect: torch-cpu-tensor-then-moved
    model->forward(x); // expect: torch-eval-without-no-grad [warning] "'model' runs forward for inference while autograd records, so every intermediate activation is" // expect-note: "put 'torch::NoGradGuard no_grad;' (or 'c10::InferenceMode guard;') at"
  }
}

// Fine.

void host_data(torch::Device device, std::vector<float> &values) {
  auto wrapped = torch::from_blob(values.data(), {static_cast<int64_t>(values.size())}).to(device);
  auto copied = torch::tensor({1.0f, 2.0f, 3.0f}).to(device);
  std::cout << wrapped.sum().item<float>() + copied.sum().item<float>() << "\n";
}

void used_on_host_first(torch::Device device) {
  auto table = torch::zeros({4, 16});
  table[0] = 1;
  auto filled = torch::empty({4, 16});
  fill_on_host(filled);
  auto moved = table.to(device) + filled.to(device);
  std::cout << moved.sum().item<float>() << "\n";
}

void used_on_host_after(torch::Device device) {
  auto sample = torch::rand({4, 16});
  auto on_device = sample.to(device);
  std::cout << sample.mean().item<float>() << on_device.sum().item<float>()
            << "\n";
}

void captured_by_lambda(torch::Device device) {
  auto base = torch::rand({4, 16});
  auto total = [&] { return base.sum(); };
  auto moved = base.to(device);
  std::cout << total().item<float>() << moved.sum().item<float>() << "\n";
}

void moved_to_the_cpu() {
  auto x = torch::rand({4, 16}).to(torch::kCPU);
  std::cout << x.sum().item<float>() << "\n";
}

void created_on_the_device(torch::Device device) {
  auto x = torch::zeros({4, 16}, torch::TensorOptions().device(device)).to(device);
  std::cout << x.sum().item<float>() << "\n";
}

void dtype_change_only() {
  auto x = torch::rand({4, 16}).to(torch::kFloat64);
  std::cout << x.sum().item<double>() << "\n";
}

void pinned_on_purpose(torch::Device device) {
  auto x = torch::randn({4, 16}).pin_memory().to(device, /*non_blocking=*/true);
  std::cout << x.sum().item<float>() << "\n";
}

void like_a_device_tensor(torch::Device device) {
  auto reference = torch::rand({4, 16}, torch::TensorOptions().device(device));
  auto x = torch::ones_like(reference).to(device);
  std::cout << x.sum().item<float>() << "\n";
}

void moved_like_another_tensor(const torch::Tensor &other) {
  auto x = torch::rand({4, 16}).to(other);
  std::cout << x.sum().item<float>() << "\n";
}

// cuDNN's autotuner switched on once, after the device is chosen: no
// torch-cudnn-benchmark-off for this program.
void tuned_convolutions(torch::Device device) {
  at::globalContext().setBenchmarkCuDNN(true);
  torch::nn::Conv2d conv(3, 8, 3);
  conv->to(device);
}

// Once per epoch, around the loop over the batches or in a function called
// there: as cheap as a copy made once, so a note, not a warning.
torch::Tensor epoch_counts(torch::Device device) {
  return torch::zeros({2}).to(device); // expect: torch-cpu-tensor-then-moved [note] "tensor created on the CPU by 'torch::zeros' only to be copied to the GPU once per epoch"
}

void epochs(Denoiser &model, torch::Device device, int64_t epochs) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int64_t epoch = 0; epoch < epochs; ++epoch) {
    auto totals = torch::zeros({4}).to(device); // expect: torch-cpu-tensor-then-moved [note] "tensor created on the CPU by 'torch::zeros' only to be copied to the GPU once per epoch, which costs a fill on the host and a copy"
    auto counts = epoch_counts(device);
    for (int64_t step = 0; step < 8; ++step) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs Linear layers in plain float32"
      auto x = torch::rand({32, 16}, torch::TensorOptions().device(device));
      auto loss = model->forward(x).pow(2).mean();
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      totals[0] += loss.detach();
      counts[0] += 1;
    }
    std::cout << totals.sum().item<float>() << counts << "\n";
  }
}

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Denoiser model;
  model->to(device);
  train(model, device, 10);
  evaluate(model, device);
  cuda_call(model);
  std::vector<float> values(16, 1.0f);
  host_data(device, values);
  used_on_host_first(device);
  used_on_host_after(device);
  captured_by_lambda(device);
  moved_to_the_cpu();
  created_on_the_device(device);
  dtype_change_only();
  pinned_on_purpose(device);
  like_a_device_tensor(device);
  moved_like_another_tensor(torch::rand({1}, torch::TensorOptions().device(device)));
  tuned_convolutions(device);
  epochs(model, device, 2);
}
