// torch-backward-under-autocast across calls: libtorch's autocast is process
// state, not a guard, so a function that never switches it runs under
// whatever its callers left on. A trainer's step turns autocast on, runs the
// model and hands the output to a loss computer defined in another unit,
// whose backward() runs under autocast too, as does a helper of the
// trainer's own unit called inside the region. A step that turns autocast
// off before the loss computer runs, and a caller that never turns it on,
// leave the backward pass alone.
#pragma once

#include <torch/torch.h>

struct LossComputer {
  torch::Tensor compute(torch::Tensor output, torch::Tensor target);
  torch::Tensor compute_outside(torch::Tensor output, torch::Tensor target);
};

void train(torch::nn::Linear &model, torch::Device device, bool amp);
void train_region_closed_first(torch::nn::Linear &model, torch::Device device);
