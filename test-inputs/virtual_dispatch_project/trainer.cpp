#include "sampler.h"

#include <cstdio>

void train(const std::shared_ptr<SamplerImpl> &sampler, torch::Device device) {
  torch::optim::AdamW optimizer(sampler->parameters(), 1e-4);
  for (int step = 0; step < 1000; ++step) {
    auto images = torch::randn({8, 16}, device);
    torch::Tensor noisy, steps;
    std::tie(noisy, steps) = sampler->noised(images);
    auto loss = sampler->forward(noisy, steps).pow(2).mean();
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    std::printf("%f\n", loss.item<float>()); // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration"
  }
}

float score_on_host(const std::shared_ptr<SamplerImpl> &sampler) {
  torch::NoGradGuard no_grad;
  float total = 0;
  for (int batch = 0; batch < 10; ++batch) {
    auto images = torch::randn({8, 16});
    auto [noisy, steps] = sampler->noised(images);
    total += (sampler->forward(noisy, steps) - images).abs().mean().item<float>();
  }
  return total;
}
