// A small program for the CLI tests: one finding of each kind, and each form
// of NOLINT.
#include <cstddef>
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::nn::Linear model(4, 2);
  model->to(torch::kCUDA);
  auto a = torch::ones({2, 4}).cuda(); // NOLINT
  auto b = torch::ones({2, 4}).cuda(); // NOLINT(torch-unchecked-cuda)
  // NOLINTNEXTLINE(torch-*)
  auto c = torch::ones({2, 4}).cuda();
  auto d = torch::ones({2, 4}).cuda(); // NOLINT(readability-magic-numbers)
  // NOLINTBEGIN(torch-unchecked-cuda)
  auto e = torch::ones({2, 4}).cuda();
  // NOLINTEND(torch-unchecked-cuda)
  std::size_t rows = 3;
  auto out = model(torch::zeros({static_cast<int64_t>(rows), 4}));
  std::cout << out + a + b + c + d + e << "\n";
}
