#include "agent.h"

// Called by run_step() on every step: one wait per parameter.
std::vector<float> gradient_norms(Policy &policy) {
  std::vector<float> norms;
  for (auto &parameter : policy->parameters())
    norms.push_back(parameter.grad().norm().item<float>()); // expect: torch-sync-in-loop [warning] "'parameter.grad().norm().item()' waits for the GPU on every iteration"
  return norms;
}

// Called once per epoch: one wait, once.
float epoch_summary(const torch::Tensor &losses) {
  return losses.mean().item<float>();
}
