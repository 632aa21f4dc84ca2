#include "losses.h"

#include <iostream>

int main() {
  torch::Device device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  torch::nn::Linear model(4, 1);
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs Linear layers in plain float32"
    auto x = torch::randn({8, 4}, device);
    auto y = torch::randn({8, 1}, device);
    auto loss = smooth_l1(model(x), y);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    // The loss is computed in losses.cpp, on the device of its inputs.
    std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration, so"
    // Host weights: reading them waits for nothing.
    std::cout << host_weights(8).sum().item<float>() << "\n";
  }
  model->to(torch::kCPU);
  std::cout << evaluate(model, torch::kCPU) << "\n";
}
