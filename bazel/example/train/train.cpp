#include "train/model.h"

#include <iostream>

int main() {
  torch::Device device(torch::kCPU);
  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      64);
  for (auto &batch : *loader) {
    optimizer.zero_grad();
    auto loss = torch::nll_loss(
        torch::log_softmax(model->forward(batch.data.view({-1, 784}).to(device)), 1),
        batch.target.to(device));
    loss.backward();
    optimizer.step();
    std::cout << loss.item<float>() << "\n";
  }
}
