#include "trainer.h"

#include <iostream>

void train(Net &model, torch::Device &device, int64_t steps) {
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int64_t step = 0; step < steps; ++step) {
    auto inputs = torch::randn({64, 16}, torch::TensorOptions().device(device)); // expect: torch-cpu-tensor-then-moved [warning] "only to be copied to the GPU on every iteration (when 'device' is a GPU)"
    auto targets =
        torch::randint(0, 4, {64}, torch::TensorOptions().device(device));
    auto loss = torch::cross_entropy_loss(model->forward(inputs), targets);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "waits for the GPU on every iteration (when 'device' is a GPU), so"
  }
}

// Evaluation under no-grad, with one sync at the end: nothing to report.
double evaluate(Net &model, const torch::Device &device) {
  torch::NoGradGuard no_grad;
  model->eval();
  auto scores = model->forward(torch::ones({8, 16}, device));
  return scores.sum().item<double>();
}

// A CPU tensor meets a module on the caller's device: a mismatch only when
// the caller passes a GPU, which no path here shows, so no error.
torch::Tensor probe(Net &model, const torch::Device &device) {
  torch::NoGradGuard no_grad;
  model->to(device);
  return model->forward(torch::zeros({1, 16}));
}
