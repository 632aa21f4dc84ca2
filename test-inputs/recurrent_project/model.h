// Results that come back as tuples: a recurrent model whose forward returns
// its output and its new state, read through std::tie, std::forward_as_tuple,
// std::get and structured bindings. Each element is where the model runs.
// The device is chosen in main.cpp and handed to the training unit, which
// sees no caller, so its findings hold "when 'device' is a GPU".
#pragma once

#include <torch/torch.h>

#include <tuple>

using State = std::tuple<torch::Tensor, torch::Tensor>;

struct LanguageModelImpl : torch::nn::Module {
  LanguageModelImpl()
      : lstm(register_module("lstm",
                             torch::nn::LSTM(torch::nn::LSTMOptions(16, 32)))),
        head(register_module("head", torch::nn::Linear(32, 8))) {}

  std::tuple<torch::Tensor, State> forward(torch::Tensor x, State state) {
    auto [out, next] = lstm->forward(x, state);
    return {head->forward(out), next};
  }

  torch::nn::LSTM lstm{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(LanguageModel);

void train(LanguageModel &model, const torch::Device &device, int64_t steps);
double evaluate(LanguageModel &model, const torch::Device &device);
