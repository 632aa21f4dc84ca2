// A small program for the CLI tests: findings of several kinds, each form
// of NOLINT.
#include <cstddef>
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::nn::Linear model(4, 2);
  model->to(torch::kCUDA);
  auto a = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}).cuda(); // NOLINT
  auto b = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}).cuda(); // NOLINT(torch-unchecked-cuda)
  // NOLINTNEXTLINE(torch-*)
  auto c = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}).cuda();
  auto d = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}).cuda(); // NOLINT(readability-magic-numbers)
  // NOLINTBEGIN(torch-unchecked-cuda)
  auto e = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}).cuda();
  // NOLINTEND(torch-unchecked-cuda)
  std::size_t rows = 3;
  auto out = model(torch::zeros({static_cast<int64_t>(rows), 4}));
  std::cout << out + a + b + c + d + e << "\n";
}
