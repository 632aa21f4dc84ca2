// A data loader with no workers, in a program that trains on a GPU when
// there is one: its fix-it takes the Workers option.
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  std::cout << "training on " << device << "\n";
  auto loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      64);
  for (auto &batch : *loader)
    (void)batch;
}
