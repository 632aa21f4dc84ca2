#include "sampler.h"

#include <iostream>

DiffusionImpl::DiffusionImpl() { net = register_module("net", torch::nn::Linear(16, 16)); }

std::tuple<torch::Tensor, torch::Tensor>
DiffusionImpl::noised(const torch::Tensor &images) {
  auto steps = torch::randint(0, 1000, {images.size(0), 1}, images.options());
  auto noise = torch::randn_like(images);
  std::cout << noise.std().item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "'noise.std().item()' waits for the GPU on every iteration"
  return {images + noise, steps};
}

torch::Tensor DiffusionImpl::forward(torch::Tensor noisy, torch::Tensor steps) {
  return net(noisy + steps / 1000);
}
