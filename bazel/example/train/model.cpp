#include "train/model.h"

#include <iostream>

NetImpl::NetImpl() { fc = register_module("fc", torch::nn::Linear(784, 10)); }

torch::Tensor NetImpl::forward(torch::Tensor x) { return fc->forward(x); }

// Evaluation that records a graph nobody uses: a warning.
void print_predictions(Net &model, const torch::Tensor &images) {
  model->eval();
  std::cout << model->forward(images).argmax(1) << "\n";
}
