// torch-cudnn-disabled: cuDNN switched off in a program that then runs
// convolutions, recurrent layers or batch normalization, which fall back to
// slower kernels. Switching it back on before that work, a run-time choice,
// debug builds, and programs without such layers are fine.
#include <torch/script.h>
#include <torch/torch.h>

#include <string>

namespace F = torch::nn::functional;

struct Net : torch::nn::Module {
  Net() {
    conv = register_module("conv", torch::nn::Conv2d(3, 8, 3));
    fc = register_module("fc", torch::nn::Linear(8, 2));
  }
  torch::Tensor forward(torch::Tensor x) {
    return fc(conv(x).mean({2, 3}));
  }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear fc{nullptr};
};

void convolution_layer() {
  torch::NoGradGuard no_grad;
  torch::nn::Conv2d conv(3, 8, 3);
  at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled [warning] "cuDNN is switched off, so on a GPU the 'Conv2d' work that runs after it falls back to libtorch's own kernels, several times slower" // expect-note: "leave cuDNN on; for reproducible results use 'at::globalContext().setDeterministicCuDNN(true)' instead"
  conv(torch::randn({1, 3, 8, 8})); // expect-note: "'Conv2d' runs here, in 'conv'"
}

void user_module() {
  torch::NoGradGuard no_grad;
  Net net;
  at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled [warning] "the 'Conv2d' work"
  net.forward(torch::randn({1, 3, 8, 8}));
}

void recurrent_layer() {
  torch::NoGradGuard no_grad;
  torch::nn::LSTM lstm(4, 8);
  at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled [warning] "the 'LSTM' work"
  lstm->forward(torch::randn({5, 1, 4}));
}

void gated_recurrent_layer() {
  torch::NoGradGuard no_grad;
  torch::nn::GRU gru(4, 8);
  at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled [warning] "the 'GRU' work"
  gru->forward(torch::randn({5, 1, 4}));
}

void batch_normalization() {
  torch::NoGradGuard no_grad;
  torch::nn::BatchNorm2d norm(8);
  at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled [warning] "the 'BatchNorm2d' work"
  norm(torch::randn({2, 8, 4, 4}));
}

void sequential() {
  torch::NoGradGuard no_grad;
  torch::nn::Sequential seq(torch::nn::Conv2d(3, 8, 3), torch::nn::ReLU());
  at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled
  seq->forward(torch::randn({1, 3, 8, 8}));
}

void functional_convolution(torch::Tensor weight) {
  at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled [warning] "the 'conv2d' work"
  F::conv2d(torch::randn({1, 3, 8, 8}), weight);
}

torch::Tensor functional_transposed(torch::Tensor weight) {
  at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled [warning] "the 'conv_transpose2d' work"
  return torch::conv_transpose2d(torch::randn({1, 3, 8, 8}), weight);
}

torch::Tensor run(Net &net, torch::Tensor x) { return net.forward(x); }

void through_a_call() {
  torch::NoGradGuard no_grad;
  Net net;
  at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled
  run(net, torch::randn({1, 3, 8, 8})); // expect-note: "'Conv2d' runs here"
}

void disable_cudnn() {
  at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled [warning]
}

void set_up_then_run() {
  torch::NoGradGuard no_grad;
  Net net;
  disable_cudnn();
  net.forward(torch::randn({1, 3, 8, 8}));
}

void in_a_loop(Net &net) {
  torch::NoGradGuard no_grad;
  for (int i = 0; i < 10; ++i) {
    at::globalContext().setUserEnabledCuDNN(false); // expect: torch-cudnn-disabled
    net.forward(torch::randn({1, 3, 8, 8}));
  }
}

// Not reported.

void switched_back_on(Net &net) {
  torch::NoGradGuard no_grad;
  at::globalContext().setUserEnabledCuDNN(false);
  at::globalContext().setUserEnabledCuDNN(true);
  net.forward(torch::randn({1, 3, 8, 8}));
}

void by_a_run_time_choice(Net &net, bool reproducible) {
  torch::NoGradGuard no_grad;
  if (reproducible)
    at::globalContext().setUserEnabledCuDNN(false);
  at::globalContext().setUserEnabledCuDNN(!reproducible);
  net.forward(torch::randn({1, 3, 8, 8}));
}

void in_debug_builds(Net &net) {
  torch::NoGradGuard no_grad;
#ifndef NDEBUG
  at::globalContext().setUserEnabledCuDNN(false);
#endif
  net.forward(torch::randn({1, 3, 8, 8}));
}

void without_cudnn_layers() {
  torch::NoGradGuard no_grad;
  torch::nn::Linear linear(4, 2);
  at::globalContext().setUserEnabledCuDNN(false);
  linear(torch::randn({1, 4}));
}

void before_nothing_runs() { at::globalContext().setUserEnabledCuDNN(false); }

void torchscript(const std::string &path) {
  torch::NoGradGuard no_grad;
  auto module = torch::jit::load(path);
  // Its layers are in the file: not known.
  at::globalContext().setUserEnabledCuDNN(false);
  module.forward({torch::randn({1, 3, 8, 8})});
}

void deterministic_instead(Net &net) {
  torch::NoGradGuard no_grad;
  at::globalContext().setDeterministicCuDNN(true);
  net.forward(torch::randn({1, 3, 8, 8}));
}

int main() {}
