#include "model.h"

#include <iostream>

int main() {
  torch::Device device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  LanguageModel model;
  model->to(device);
  train(model, device, 100);
  std::cout << evaluate(model, device) << "\n";
}
