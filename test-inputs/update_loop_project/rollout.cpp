#include "agent.h"

Rollout collect(Agent &agent, torch::Device device, int steps) {
  torch::NoGradGuard no_grad;
  Rollout rollout{torch::zeros({steps, 8}, device),
                  torch::zeros({steps}, device)};
  auto observation = torch::rand({8}, device);
  for (int step = 0; step < steps; ++step) {
    rollout.observations[step] = observation;
    rollout.returns[step] = agent->forward(observation).max();
    observation = torch::rand({8}, device);
  }
  return rollout;
}

torch::Tensor bootstrap(Agent &agent, const torch::Tensor &observation) {
  torch::NoGradGuard no_grad;
  return agent->forward(observation).max();
}
