#include "agent.h"

torch::Tensor PolicyImpl::act(torch::Tensor observation) {
  return forward(observation).softmax(-1);
}

float run_step(Policy &policy, torch::optim::Optimizer &optimizer,
               const torch::Tensor &observation) {
  optimizer.zero_grad();
  auto probabilities = policy->act(observation);
  auto loss = -probabilities.log().mean();
  loss.backward();
  optimizer.step();
  auto norms = gradient_norms(policy);
  return loss.item<float>() + norms.size(); // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration"
}
