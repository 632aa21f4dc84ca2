#include "losses.h"

AnchorLossImpl::AnchorLossImpl(torch::Tensor anchors, torch::Device device)
    : anchors(anchors.to(device)),
      scale(register_module("scale", torch::nn::Linear(4, 4))) {
  to(device);
}

torch::Tensor AnchorLossImpl::forward(torch::Tensor prediction,
                                      torch::Tensor target) {
  return (scale(prediction) - target).abs().mean() + anchors.sum();
}

HeadImpl::HeadImpl(int64_t in, int64_t out)
    : fc(register_module("fc", torch::nn::Linear(in, out))) {}

torch::Tensor HeadImpl::forward(torch::Tensor x) { return fc(x); }

// Made on the host and never registered: the module's to() leaves it there.
struct OffsetImpl : torch::nn::Module {
  OffsetImpl() : offset(register_buffer("offset", torch::rand({4}))) {}
  torch::Tensor forward(torch::Tensor x) { return x + offset; } // expect: torch-unregistered-submodule [error] "tensor member 'offset' is never registered, so to() leaves it on the CPU"
  torch::Tensor offset;
};
TORCH_MODULE(Offset);

torch::Tensor shifted(torch::Tensor x, torch::Device device) {
  torch::NoGradGuard no_grad;
  Offset offset;
  offset->to(device);
  return offset(x);
}
