#pragma once

#include <torch/torch.h>

class ReplayBuffer {
public:
  ReplayBuffer(int64_t capacity, int64_t width);
  void store(const torch::Tensor &state);
  torch::Tensor sample(int64_t batch_size);

private:
  torch::Tensor states_;
  int64_t next_ = 0;
};
