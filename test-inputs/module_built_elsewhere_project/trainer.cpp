#include "losses.h"

#include <vector>

void train(torch::Device device) {
  torch::NoGradGuard no_grad;
  AnchorLoss criterion(torch::rand({3, 4}), device);
  Head head(4, 4);
  std::vector<torch::Tensor> kept;
  for (int step = 0; step < 10; ++step) {
    auto prediction = torch::randn({8, 4}, device);
    auto target = torch::randn({8, 4}, device);
    kept.push_back(criterion(prediction, target));
    kept.push_back(head(prediction)); // expect: torch-module-never-moved [warning] "module 'head' is never moved", torch-device-mismatch [error] "module 'head' is never moved off the CPU"
  }
}
