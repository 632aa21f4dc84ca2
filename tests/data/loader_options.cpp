// A data loader with no workers: its fix-it takes the Workers option.
#include <torch/torch.h>

int main() {
  auto loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      64);
  for (auto &batch : *loader)
    (void)batch;
}
