// What a function of another unit returns, and what other units pass to a
// function of this one, are known only from the summary pass: main.cpp sees
// the declarations of the loss and of evaluate(), losses.cpp and evaluate.cpp
// see no call. The loss is on the device of its inputs (a GPU in the training
// loop: its item() waits); the weights are created on the CPU; evaluate() is
// called with the CPU, so nothing in it waits for a GPU or copies to one.
#pragma once

#include <torch/torch.h>

torch::Tensor smooth_l1(const torch::Tensor &output,
                        const torch::Tensor &target);
torch::Tensor host_weights(int64_t n);
double evaluate(torch::nn::Linear &model, const torch::Device &device);
