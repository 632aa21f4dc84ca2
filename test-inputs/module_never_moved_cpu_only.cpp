// torch-module-never-moved: a program that never asks for CUDA runs its
// modules on the CPU by design: nothing is reported.
#include <torch/torch.h>

#include <iostream>

torch::Tensor next_input();

void infer_on_the_host() {
  torch::NoGradGuard no_grad;
  torch::nn::Sequential model(torch::nn::Linear(16, 8), torch::nn::ReLU(),
                              torch::nn::Linear(8, 2));
  model->eval();
  for (int frame = 0; frame < 1000; ++frame)
    std::cout << model->forward(next_input()).argmax(1) << "\n";
}

int main() { infer_on_the_host(); }
