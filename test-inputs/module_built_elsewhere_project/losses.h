// A module whose constructor is defined in another unit: this unit cannot
// see where it puts its parameters. A loss written as a module that is
// handed the device (and keeps its anchors, or moves itself, there) may be
// anywhere, so feeding it GPU tensors is no device-mismatch error; a module
// handed no device and never moved keeps its parameters on the CPU, as any
// other, and a GPU input is an error. The anchors the loss keeps are made on
// the device and never registered: to() need not move them, so that is no
// unregistered-member error either; a member made on the host is one.
#pragma once

#include <torch/torch.h>

struct AnchorLossImpl : torch::nn::Module {
  AnchorLossImpl(torch::Tensor anchors, torch::Device device);
  torch::Tensor forward(torch::Tensor prediction, torch::Tensor target);
  torch::Tensor anchors;
  torch::nn::Linear scale{nullptr};
};
TORCH_MODULE(AnchorLoss);

struct HeadImpl : torch::nn::Module {
  HeadImpl(int64_t in, int64_t out);
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Head);

void train(torch::Device device);
torch::Tensor shifted(torch::Tensor x, torch::Device device);
