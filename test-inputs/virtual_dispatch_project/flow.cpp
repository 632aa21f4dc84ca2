#include "sampler.h"

FlowImpl::FlowImpl() { net = register_module("net", torch::nn::Linear(16, 16)); }

std::tuple<torch::Tensor, torch::Tensor>
FlowImpl::noised(const torch::Tensor &images) {
  auto steps = torch::rand({images.size(0), 1}, images.options());
  return {images * (1 - steps) + torch::randn_like(images) * steps, steps};
}

torch::Tensor FlowImpl::forward(torch::Tensor noisy, torch::Tensor steps) {
  return net(noisy) * steps;
}
