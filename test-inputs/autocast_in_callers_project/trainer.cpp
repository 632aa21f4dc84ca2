#include "losses.h"

#include <ATen/autocast_mode.h>

namespace {
void backward_of(const torch::Tensor &loss) {
  loss.backward(); // expect: torch-backward-under-autocast [warning] "the backward pass runs while autocast is on in a caller"
}
} // namespace

void train(torch::nn::Linear &model, torch::Device device, bool amp) {
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  LossComputer losses;
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    if (amp)
      at::autocast::set_enabled(true); // expect-note: "autocast is turned on here, before the call"
    auto output = model(torch::randn({32, 64}, device));
    auto target = torch::randint(10, {32}, device);
    if (step % 2 == 0)
      losses.compute(output, target);
    else
      backward_of(torch::cross_entropy_loss(output, target));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    optimizer.step();
  }
}

void train_region_closed_first(torch::nn::Linear &model, torch::Device device) {
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  LossComputer losses;
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true);
    auto output = model(torch::randn({32, 64}, device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    losses.compute_outside(output, torch::randint(10, {32}, device));
    optimizer.step();
  }
}
