#include "losses.h"

torch::Tensor smooth_l1(const torch::Tensor &output,
                        const torch::Tensor &target) {
  return torch::smooth_l1_loss(output, target);
}

torch::Tensor host_weights(int64_t n) { return torch::ones({n}); }
