#include "agent.h"

#include <iostream>

torch::Tensor learn(Agent &agent, torch::optim::Optimizer &optimizer,
                    const Rollout &rollout, int epochs) {
  torch::Tensor loss;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (int64_t start = 0; start < rollout.observations.size(0); start += 4) { // expect: torch-missing-mixed-precision
      auto batch = rollout.observations.slice(0, start, start + 4);
      auto target = rollout.returns.slice(0, start, start + 4);
      optimizer.zero_grad();
      loss = (agent->forward(batch).amax(1) - target).pow(2).mean();
      loss.backward();
      optimizer.step();
      std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration"
    }
  }
  return loss.detach();
}

// Called once per update, after many minibatch steps.
void log_update(int update, const torch::Tensor &loss,
                const torch::Tensor &value) {
  std::cout << update << " " << loss.item<float>() << " "
            << value.item<float>() << "\n";
}
