// Per-step work reached only through calls, in three units: main.cpp's loop
// calls run_step() (trainer.cpp), which runs the model through the policy's
// act(), an entry point other than forward(); stats.cpp reads a value per
// parameter in a helper whose nearest loop is its own, called from the step.
// Each unit learns from the others' summaries that its code runs on every
// step; what runs once per epoch, or before the loop, is not reported.
#pragma once

#include <torch/torch.h>

#include <vector>

struct PolicyImpl : torch::nn::Module {
  PolicyImpl() : head(register_module("head", torch::nn::Linear(8, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return head(x); }
  torch::Tensor act(torch::Tensor observation);
  torch::nn::Linear head;
};
TORCH_MODULE(Policy);

float run_step(Policy &policy, torch::optim::Optimizer &optimizer,
               const torch::Tensor &observation);
std::vector<float> gradient_norms(Policy &policy);
float epoch_summary(const torch::Tensor &losses);
