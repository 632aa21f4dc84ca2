// Modules that move themselves where they are built, as reinforcement
// learning code often writes them: the constructor picks the device and
// calls this->to(device), so every module of the class is on that device
// from the start. A batch sampled from a replay buffer that another unit
// keeps on the host is not: feeding it to such a module fails on a GPU
// machine. A module moved by its constructor only on some constructions
// is on no known device, and no error rests on it.
#pragma once

#include <torch/torch.h>

struct ValueImpl : torch::nn::Module {
  explicit ValueImpl(int64_t inputs)
      : fc(register_module("fc", torch::nn::Linear(inputs, 1))),
        device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU) {
    this->to(device); // expect-note: "'value_' is moved to 'device' here"
  }
  torch::Tensor forward(torch::Tensor state) { return fc(state); }
  torch::nn::Linear fc;
  torch::Device device;
};

struct PolicyImpl : torch::nn::Module {
  PolicyImpl(int64_t inputs, bool use_gpu)
      : fc(register_module("fc", torch::nn::Linear(inputs, 2))) {
    if (use_gpu && torch::cuda::is_available())
      this->to(torch::kCUDA);
  }
  torch::Tensor forward(torch::Tensor state) { return fc(state); }
  torch::nn::Linear fc;
};
