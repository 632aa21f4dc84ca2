// Code in a loop that runs on one iteration only repeats nothing: a loop whose
// body always ends in a break (a smoke test that stops after its first batch),
// and a branch on the first or the last iteration (`if (i == 0)`, a counter
// compared for equality). The same work on every iteration is reported.
#include <torch/torch.h>

#include <iostream>
#include <vector>

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}

void smoke_test(torch::nn::Linear &model, torch::Device device,
                const std::vector<torch::Tensor> &batches) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (const auto &batch : batches) {
    auto loss = model(batch.to(device)).sum();
    loss.backward();
    optimizer.step();
    std::cout << loss.item<float>() << "\n";
    break;
  }
}

void train(torch::nn::Linear &model, torch::Device device,
           const std::vector<torch::Tensor> &batches) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  torch::Tensor first, last;
  for (size_t i = 0; i < batches.size(); ++i) { // expect: torch-missing-mixed-precision
    auto input = batches[i].to(device); // expect: torch-pageable-copy
    auto loss = model(input).sum();
    loss.backward();
    optimizer.step();
    if (i == 0)
      first = loss.detach().cpu();
    if (i + 1 == batches.size())
      last = loss.detach().cpu();
    std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop
  }
  std::cout << first << last << "\n";
}

int main() {
  torch::nn::Linear model(8, 1);
  torch::Device device = pick_device();
  model->to(device);
  std::vector<torch::Tensor> batches(16, torch::rand({4, 8}));
  smoke_test(model, device, batches);
  train(model, device, batches);
}
