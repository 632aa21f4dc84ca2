#include "buffer.h"

ReplayBuffer::ReplayBuffer(int64_t capacity, int64_t width)
    : states_(torch::zeros({capacity, width})) {}

void ReplayBuffer::store(const torch::Tensor &state) {
  states_[next_++ % states_.size(0)] = state.squeeze(0);
}

torch::Tensor ReplayBuffer::sample(int64_t batch_size) {
  auto index = torch::randint(states_.size(0), {batch_size}, torch::kLong);
  return states_.index_select(0, index);
}
