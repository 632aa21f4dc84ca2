// torch-sync-in-loop in lambdas and error handlers: a lambda kept in a local
// variable and only called runs where it is called, not where it is written,
// so a debug dump called under a flag that stays off, or from a catch handler,
// is no step's work; one called on every step is. A catch handler runs when a
// step fails, not on every step. A lambda handed to an algorithm runs where it
// is made, as before.
#include <torch/torch.h>

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <vector>

struct BadBatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

torch::Tensor loss_of(torch::nn::Linear &model, const torch::Tensor &data,
                      const torch::Tensor &target) {
  auto loss = torch::cross_entropy_loss(model(data), target);
  if (!torch::isfinite(loss).all().item<bool>()) // expect: torch-sync-in-loop
    throw BadBatch("loss is not finite");
  return loss;
}

// --- positives -------------------------------------------------------------

void dump_called_every_step(torch::nn::Linear &model,
                            torch::optim::SGD &optimizer,
                            torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    auto data = torch::randn({32, 64}, device);
    auto target = torch::randint(10, {32}, device);
    auto report = [&](const torch::Tensor &loss) {
      std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "waits for the GPU on every iteration"
    };
    optimizer.zero_grad();
    auto loss = loss_of(model, data, target);
    loss.backward();
    optimizer.step();
    report(loss);
  }
}

void algorithm_over_the_heads(torch::nn::Linear &model,
                              torch::optim::SGD &optimizer,
                              torch::Device device) {
  std::vector<int64_t> heads = {0, 1, 2};
  for (int step = 0; step < 100; ++step) {
    auto data = torch::randn({32, 64}, device);
    auto target = torch::randint(10, {32}, device);
    optimizer.zero_grad();
    auto logits = model(data);
    auto loss = torch::cross_entropy_loss(logits, target);
    loss.backward();
    optimizer.step();
    std::for_each(heads.begin(), heads.end(), [&](int64_t head) {
      std::cout << logits.select(1, head).sum().item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "waits for the GPU on every iteration"
    });
  }
}

// --- negatives -------------------------------------------------------------

void dump_behind_a_debug_flag(torch::nn::Linear &model,
                              torch::optim::SGD &optimizer,
                              torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    auto data = torch::randn({32, 64}, device);
    auto target = torch::randint(10, {32}, device);
    auto dump = [&]() {
      std::cerr << data.sum().item<float>() << " "
                << target.max().item<int64_t>() << "\n";
    };
    bool debug_input = false;
    if (debug_input)
      dump();
    try {
      optimizer.zero_grad();
      auto loss = loss_of(model, data, target);
      loss.backward();
      optimizer.step();
    } catch (const BadBatch &) {
      dump();
      throw;
    }
  }
}

void skips_bad_batches(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                       torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    auto data = torch::randn({32, 64}, device);
    auto target = torch::randint(10, {32}, device);
    try {
      optimizer.zero_grad();
      auto loss = loss_of(model, data, target);
      loss.backward();
      optimizer.step();
    } catch (const BadBatch &error) {
      std::cerr << error.what() << ": batch sum " << data.sum().item<float>()
                << "\n";
    }
  }
}

int main() {
  torch::Device device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  // TF32 keeps the tensor cores busy: this program is about syncs only.
  at::globalContext().setAllowTF32CuBLAS(true);
  torch::nn::Linear model(64, 10);
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  dump_called_every_step(model, optimizer, device);
  algorithm_over_the_heads(model, optimizer, device);
  dump_behind_a_debug_flag(model, optimizer, device);
  skips_bad_batches(model, optimizer, device);
  return 0;
}
