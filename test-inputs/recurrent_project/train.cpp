#include "model.h"

#include <iostream>

// main.cpp passes the GPU whenever there is one (its summary says so).
void train(LanguageModel &model, const torch::Device &device, int64_t steps) {
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  auto options = torch::TensorOptions().device(device);
  auto h = torch::zeros({1, 4, 32}, options);
  auto c = torch::zeros({1, 4, 32}, options);
  for (int64_t step = 0; step < steps; ++step) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs LSTM layers in plain float32"
    auto x = torch::randn({5, 4, 16}, options);
    torch::Tensor output;
    std::forward_as_tuple(output, std::tie(h, c)) =
        model->forward(x, std::make_tuple(h, c));
    h.detach_();
    c.detach_();
    auto loss = output.pow(2).mean();
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration, so"
    std::cout << h.norm().item<float>() << "\n"; // expect: torch-sync-in-loop
  }
}

double evaluate(LanguageModel &model, const torch::Device &device) {
  torch::NoGradGuard no_grad;
  model->eval();
  auto options = torch::TensorOptions().device(device);
  State state{torch::zeros({1, 4, 32}, options),
              torch::zeros({1, 4, 32}, options)};
  double total = 0;
  for (int step = 0; step < 10; ++step) {
    auto result = model->forward(torch::randn({5, 4, 16}, options), state);
    total += std::get<0>(result).sum().item<double>(); // expect: torch-sync-in-loop
    auto [output, next] = model->forward(torch::randn({5, 4, 16}, options), state);
    total += output.mean().item<double>(); // expect: torch-sync-in-loop
    state = next;
    // A tuple of CPU tensors: reading it waits for no GPU.
    auto [values, indices] = torch::sort(torch::rand({8}));
    total += values[0].item<double>() + indices[0].item<int64_t>();
  }
  return total;
}
