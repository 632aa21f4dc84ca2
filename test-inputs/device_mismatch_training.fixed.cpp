// torch-device-mismatch in training loops: the model is moved to the GPU, the
// data is not. Also the correct forms, which must draw no finding.
#include <torch/torch.h>

#include <cstdio>
#include <iostream>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(784, 64));
    fc2 = register_module("fc2", torch::nn::Linear(64, 10));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1->forward(x.view({x.size(0), 784})));
    return torch::log_softmax(fc2->forward(x), /*dim=*/1);
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

using MnistLoader = decltype(torch::data::make_data_loader(
    torch::data::datasets::MNIST("data").map(
        torch::data::transforms::Stack<>()),
    64));

MnistLoader make_loader() {
  return torch::data::make_data_loader( // expect: torch-dataloader-no-workers [note] "data loader has no worker threads (make_data_loader(dataset, batch_size)"
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(64).workers(2));
}

// The batch comes from the data loader on the CPU and goes unmoved into a
// model on the GPU; so does the target into the loss.
void loader_batch_not_moved() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto loader = make_loader();
  for (auto &batch : *loader) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs Linear layers in"
    optimizer.zero_grad();
    auto output = model->forward(batch.data.to(device)); // expect: torch-device-mismatch [error] "input 'batch.data' is on the CPU but module"
    auto loss = torch::nll_loss(output, batch.target.to(device)); // expect: torch-device-mismatch
    loss.backward();
    optimizer.step();
  }
}

// The data is moved, the target is not.
void target_not_moved() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Net model;
  model->to(device);
  auto loader = make_loader();
  for (auto &batch : *loader) { // expect: torch-missing-mixed-precision
    auto data = batch.data.to(device); // expect: torch-pageable-copy [warning] "'batch.data' is copied to the GPU from pageable"
    auto output = model->forward(data);
    auto loss = torch::nn::functional::cross_entropy(output, batch.target.to(device)); // expect: torch-device-mismatch
    loss.backward();
  }
}

// A loss module gets the GPU output and a CPU target.
void loss_module_target_on_cpu() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  auto model = torch::nn::Sequential(torch::nn::Linear(16, 32),
                                     torch::nn::ReLU(),
                                     torch::nn::Linear(32, 1));
  model->to(device);
  torch::nn::MSELoss criterion;
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
    auto input = torch::randn({32, 16}, torch::TensorOptions().device(device)); // expect: torch-cpu-tensor-then-moved [warning] "tensor created on the CPU by 'torch"
    auto target = torch::randn({32, 1}, torch::TensorOptions().device(device));
    auto loss = criterion(model->forward(input), target); // expect: torch-device-mismatch
    loss.backward();
  }
}

// The residual of a GPU output and a CPU tensor. A CPU scalar (a full
// reduction) may meet a GPU tensor, as PyTorch treats it as a number.
void residual_on_two_devices() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::nn::Linear regressor(8, 1);
  regressor->to(device);
  auto loader = torch::data::make_data_loader( // expect: torch-dataloader-no-workers
      torch::data::datasets::TensorDataset(torch::randn({256, 8})), torch::data::DataLoaderOptions(32).workers(2));
  for (auto &batch : *loader) {
    for (auto &example : batch) { // expect: torch-missing-mixed-precision
      auto prediction = regressor(example.data.to(device)); // expect: torch-pageable-copy
      auto residual = prediction - example.data.mean(1, /*keepdim=*/true).to(device); // expect: torch-device-mismatch
      auto centred = prediction - example.data.sum();
      (residual.pow(2).mean() + centred.mean()).backward();
    }
  }
}

// A sequential model on the GPU fed a tensor made on the CPU.
void sequential_input_from_factory() {
  torch::NoGradGuard no_grad;
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::nn::Sequential model(torch::nn::Linear(4, 4), torch::nn::Tanh());
  model->to(device);
  auto input = torch::ones({8, 4});
  auto output = model->forward(input.to(device)); // expect: torch-device-mismatch, torch-eval-without-no-grad [warning] "'model' runs forward for inference while autograd records"
  std::cout << output.sum().item<float>() << "\n";
}

// Correct: the pytorch/examples way. The device is chosen by availability,
// data and targets are moved, results come back to the host to be printed.
void examples_style_training() {
  torch::DeviceType device_type;
  if (torch::cuda::is_available()) {
    device_type = torch::kCUDA;
  } else {
    device_type = torch::kCPU;
  }
  torch::Device device(device_type);
  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.01).momentum(0.5));
  auto loader = make_loader();
  size_t batch_idx = 0;
  for (auto &batch : *loader) { // expect: torch-missing-mixed-precision
    auto data = batch.data.to(device), targets = batch.target.to(device); // expect: torch-pageable-copy, torch-pageable-copy
    optimizer.zero_grad();
    auto output = model->forward(data);
    auto loss = torch::nll_loss(output, targets);
    loss.backward();
    optimizer.step();
    if (batch_idx++ % 10 == 0)
      std::printf("loss: %.4f\n", loss.template item<float>());
  }
  torch::save(model, "model.pt");
}

// Correct: evaluation with the targets moved, accuracy read on the host.
void evaluation_moves_everything() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Net model;
  model->to(device);
  model->eval();
  torch::NoGradGuard no_grad;
  auto loader = make_loader();
  int64_t correct = 0;
  for (const auto &batch : *loader) {
    auto data = batch.data.to(device); // expect: torch-pageable-copy
    auto targets = batch.target.to(device); // expect: torch-pageable-copy
    auto output = model->forward(data);
    auto pred = output.argmax(1);
    correct += pred.eq(targets).sum().template item<int64_t>(); // expect: torch-sync-in-loop [warning] "'pred.eq(targets).sum().item()' waits for the GPU on every iteration, so the host blocks until" // expect-note: "accumulate on the device (running_loss += loss.detach())"
  }
  std::cout << "correct: " << correct << "\n";
}

// Correct: a loss module with both operands on the device.
void loss_module_both_moved() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::nn::Linear model(16, 1);
  model->to(device);
  torch::nn::MSELoss criterion;
  auto input = torch::randn({32, 16}, torch::TensorOptions().device(device));
  auto target = torch::randn({32, 1}).to(device);
  auto loss = criterion(model(input), target);
  loss.backward();
}

// Correct: outputs brought back to the CPU after training, to print and save.
void results_back_on_host() {
  torch::NoGradGuard no_grad;
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Net model;
  model->to(device);
  auto input = torch::rand({1, 1, 28, 28}).to(device, /*non_blocking=*/true);
  auto output = model->forward(input).cpu(); // expect: torch-eval-without-no-grad
  std::cout << output << "\n";
  torch::save(output, "output.pt");
  auto host = model->forward(input).to(torch::kCPU);
  float best = host.max().item<float>();
  std::cout << best << "\n";
}

int main() {
  loader_batch_not_moved();
  target_not_moved();
  loss_module_target_on_cpu();
  residual_on_two_devices();
  sequential_input_from_factory();
  examples_style_training();
  evaluation_moves_everything();
  loss_module_both_moved();
  results_back_on_host();
}
