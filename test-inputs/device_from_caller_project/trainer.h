// The device is chosen at run time in one unit (main.cpp, from a flag) and
// used in another (train.cpp), which sees it as a parameter that main.cpp's
// summary sets to the GPU on some runs and to the CPU on others: the
// opportunity rules count it as a GPU and say "when 'device' is a GPU", with
// a note where main.cpp chooses the GPU; an error such as a device mismatch
// is still reported only where some path really puts two values apart.
#pragma once

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(16, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

void train(Net &model, torch::Device &device, int64_t steps);
double evaluate(Net &model, const torch::Device &device);
torch::Tensor probe(Net &model, const torch::Device &device);
