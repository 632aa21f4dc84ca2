// A base class with pure virtual methods (the sampler of a diffusion model,
// a criterion chosen by configuration): the trainer calls them through the
// base, and whichever override the object has runs, each defined in a unit
// of its own. What the call returns is what any override returns (here,
// tensors where the input is: on the GPU), and every override is called as
// the base is: on every step of the trainer's loop, with its arguments. An
// override that reads nothing back costs nothing; one the program only
// calls on host tensors waits for nothing.
#pragma once

#include <torch/torch.h>

#include <tuple>

struct SamplerImpl : torch::nn::Module {
  virtual std::tuple<torch::Tensor, torch::Tensor>
  noised(const torch::Tensor &images) = 0;
  virtual torch::Tensor forward(torch::Tensor noisy, torch::Tensor steps) = 0;
};

struct DiffusionImpl : SamplerImpl {
  DiffusionImpl();
  std::tuple<torch::Tensor, torch::Tensor>
  noised(const torch::Tensor &images) override;
  torch::Tensor forward(torch::Tensor noisy, torch::Tensor steps) override;
  torch::nn::Linear net{nullptr};
};

struct FlowImpl : SamplerImpl {
  FlowImpl();
  std::tuple<torch::Tensor, torch::Tensor>
  noised(const torch::Tensor &images) override;
  torch::Tensor forward(torch::Tensor noisy, torch::Tensor steps) override;
  torch::nn::Linear net{nullptr};
};

void train(const std::shared_ptr<SamplerImpl> &sampler, torch::Device device);
float score_on_host(const std::shared_ptr<SamplerImpl> &sampler);
