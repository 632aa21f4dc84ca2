#include "agent.h"

#include <iostream>

int main() {
  torch::Device device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  Policy policy;
  policy->to(device);
  torch::optim::Adam optimizer(policy->parameters(), 1e-3);
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto losses = torch::zeros({100}, device);
    // (torch-missing-mixed-precision looks for the backward pass one call
    // deep in this unit only: run_step is in another, so it is silent here.)
    for (int step = 0; step < 100; ++step) {
      auto observation = torch::rand({32, 8}, device);
      losses[step] = run_step(policy, optimizer, observation);
    }
    std::cout << epoch_summary(losses) << "\n";
  }
}
