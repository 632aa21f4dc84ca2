#include "losses.h"

double evaluate(torch::nn::Linear &model, const torch::Device &device) {
  torch::NoGradGuard no_grad;
  double total = 0;
  for (int batch = 0; batch < 10; ++batch) {
    // The only caller passes the CPU: no copy to a GPU, no wait for one.
    auto x = torch::randn({8, 4}).to(device);
    total += model(x).sum().item<double>();
  }
  return total;
}
