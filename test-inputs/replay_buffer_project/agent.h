#pragma once

#include "buffer.h"
#include "networks.h"

class Agent {
public:
  Agent()
      : value_(4), policy_(4, false), buffer_(1000, 4),
        optimizer_(value_.parameters(), 1e-3) {}
  torch::Tensor act(const torch::Tensor &state);
  void remember(const torch::Tensor &state) { buffer_.store(state); }
  void learn();
  void learn_on_its_device();

private:
  ValueImpl value_;
  PolicyImpl policy_;
  ReplayBuffer buffer_;
  torch::optim::Adam optimizer_;
};
