#include "detector.h"

#include <iostream>

float train_step(Detector &model, torch::optim::Optimizer &optimizer,
                 const torch::Tensor &frames, const torch::Tensor &labels) {
  optimizer.zero_grad();
  auto loss = torch::cross_entropy_loss(model(frames), labels);
  loss.backward();
  optimizer.step();
  // main.cpp logs the loss it returns on every step of its loop.
  return loss.item<float>(); // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration"
}

// The header's noise_like() is reported once: main.cpp calls it in its
// training loop, and calls evaluate() with the same GPU (its summary says so).
void evaluate(Detector &model, torch::Device device) {
  model->eval(); // expect-note: "the module is switched to evaluation mode here"
  std::vector<torch::Tensor> scores;
  for (int batch = 0; batch < 8; ++batch) {
    auto frames = torch::rand({32, 256}, device);
    scores.push_back(model(frames + noise_like(frames, device)).sum()); // expect: torch-eval-without-no-grad
  }
  std::cout << torch::stack(scores).mean().item<double>() << "\n";
}
