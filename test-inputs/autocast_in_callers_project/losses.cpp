#include "losses.h"

torch::Tensor LossComputer::compute(torch::Tensor output, torch::Tensor target) {
  auto loss = torch::cross_entropy_loss(output, target);
  loss.backward(); // expect: torch-backward-under-autocast [warning] "the backward pass runs while autocast is on in a caller"
  return loss.detach();
}

// Its only caller turns autocast off first.
torch::Tensor LossComputer::compute_outside(torch::Tensor output,
                                            torch::Tensor target) {
  auto loss = torch::cross_entropy_loss(output, target);
  loss.backward();
  return loss.detach();
}
