#include "agent.h"

torch::Tensor Agent::act(const torch::Tensor &state) {
  torch::NoGradGuard no_grad;
  return policy_.forward(state);
}

void Agent::learn() {
  auto states = buffer_.sample(64); // expect-note: "'states' is created on the CPU here"
  auto loss = value_.forward(states).pow(2).mean(); // expect: torch-device-mismatch [error] "input 'states' is on the CPU but module 'value_' is on the GPU, so the call fails"
  optimizer_.zero_grad();
  loss.backward();
  optimizer_.step();
}

void Agent::learn_on_its_device() {
  auto states = buffer_.sample(64).to(value_.device);
  auto loss = value_.forward(states).pow(2).mean();
  optimizer_.zero_grad();
  loss.backward();
  optimizer_.step();
}
