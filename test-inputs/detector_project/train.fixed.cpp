#include "detector.h"

#include <iostream>

float train_step(Detector &model, torch::optim::Optimizer &optimizer,
                 const torch::Tensor &frames, const torch::Tensor &labels) {
  optimizer.zero_grad();
  auto loss = torch::cross_entropy_loss(model(frames), labels);
  loss.backward();
  optimizer.step();
  return loss.item<float>();
}

// The header's noise_like() is reported once, from this unit, where its
// device is a parameter of evaluate(): the finding says so.
void evaluate(Detector &model, torch::Device device) { // expect-note: "'device' is set by callers outside this unit"
  torch::NoGradGuard no_grad;
  model->eval(); // expect-note: "the module is switched to evaluation mode here"
  std::vector<torch::Tensor> scores;
  for (int batch = 0; batch < 8; ++batch) {
    auto frames = torch::rand({32, 256}, device);
    scores.push_back(model(frames + noise_like(frames, device)).sum()); // expect: torch-eval-without-no-grad // expect-note: "called on every iteration of a loop here"
  }
  std::cout << torch::stack(scores).mean().item<double>() << "\n";
}
