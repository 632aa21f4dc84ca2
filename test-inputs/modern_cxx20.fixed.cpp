// torchlint-test: libtorch>=2 c++20
// The device rules on C++20 code against libtorch 2.x (libtorch 1.13's own
// headers do not build as C++20 with libstdc++ 12): designated initializers,
// concepts, ranges, structured bindings, std::span.
#include <torch/torch.h>

#include <concepts>
#include <ranges>
#include <span>
#include <vector>

struct Config {
  int64_t batch = 32;
  int64_t features = 16;
  bool move_inputs = true;
};

template <typename M>
concept Runnable = requires(M m, torch::Tensor t) {
  { m->forward(t) } -> std::convertible_to<torch::Tensor>;
};

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                     : torch::Device(torch::kCPU);
}

void designated_config(const Config &config) {
  torch::NoGradGuard no_grad;
  auto device = pick_device();
  torch::nn::Linear model(config.features, 1);
  model->to(device);
  auto x = torch::randn({config.batch, config.features});
  auto y = model(x.to(device)); // expect: torch-device-mismatch [error] "input 'x' is on the CPU but module", torch-eval-without-no-grad [warning] "'model' runs forward for inference while autograd records"
  auto z = model(x.to(device));
}

template <Runnable M> torch::Tensor run_all(M &model, std::span<const torch::Tensor> inputs) {
  torch::Tensor total;
  for (const auto &input : inputs)
    total = model->forward(input);
  return total;
}

void spans_and_ranges() {
  auto device = pick_device();
  torch::nn::Linear model(4, 4);
  model->to(device);
  std::vector<torch::Tensor> inputs;
  for (int i : std::views::iota(0, 3))
    inputs.push_back(torch::full({2, 4}, i, torch::TensorOptions().device(device)));
  run_all(model, inputs);
}

void structured_bindings() {
  auto device = pick_device();
  torch::nn::Linear model(8, 2);
  model->to(device);
  auto [features, labels] = std::pair{torch::rand({4, 8}), torch::rand({4, 2})};
  auto prediction = model(features.to(device));
  auto loss = torch::mse_loss(prediction, labels.to(device));
  loss.backward();
}

void unchecked_in_modern_code() {
  auto model = torch::nn::Linear(2, 2);
  model->to(torch::Device{torch::kCUDA}); // expect: torch-unchecked-cuda [warning] "'torch"
}

int main() {
  designated_config({.batch = 64, .features = 16});
  spans_and_ranges();
  structured_bindings();
  unchecked_in_modern_code();
}
