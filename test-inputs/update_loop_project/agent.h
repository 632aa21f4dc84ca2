// A loop is a step loop when one of its iterations is one step: it runs the
// model, backward() or the optimizer itself. An outer loop whose nested loops
// train (a PPO update: a rollout loop, one bootstrap forward, then a loop of
// minibatch steps) runs once per many steps even though it also runs the
// model once itself: what it does directly is per update, like an epoch, and
// its waits are not reported. A loop that trains itself stays a step loop
// whatever its nested loops do: a GAN step after five critic steps, a
// recurrent step after a loop over time steps.
#pragma once

#include <torch/torch.h>

struct AgentImpl : torch::nn::Module {
  AgentImpl() : body(register_module("body", torch::nn::Linear(8, 5))) {}
  torch::Tensor forward(torch::Tensor x) { return body(x); }
  torch::nn::Linear body;
};
TORCH_MODULE(Agent);

struct Rollout {
  torch::Tensor observations;
  torch::Tensor returns;
};

Rollout collect(Agent &agent, torch::Device device, int steps);
torch::Tensor bootstrap(Agent &agent, const torch::Tensor &observation);
torch::Tensor learn(Agent &agent, torch::optim::Optimizer &optimizer,
                    const Rollout &rollout, int epochs);
void log_update(int update, const torch::Tensor &loss,
                const torch::Tensor &value);
