// Tensors kept in sequences: a std::vector<torch::Tensor> filled with
// push_back, an initializer list or element assignment, read with at() or
// [], made by split(), handed to torch::stack and torch::cat as a TensorList,
// and a module that takes and returns one. A sequence is on the devices of
// its elements: reading a GPU sequence waits for the GPU, a CPU one waits for
// nothing.
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct BranchesImpl : torch::nn::Module {
  BranchesImpl() : fc(register_module("fc", torch::nn::Linear(16, 4))) {}
  std::vector<torch::Tensor> forward(const std::vector<torch::Tensor> &inputs) {
    std::vector<torch::Tensor> outputs;
    for (size_t i = 0; i < inputs.size(); ++i)
      outputs.push_back(fc(inputs.at(i)));
    return outputs;
  }
  torch::nn::Linear fc;
};
TORCH_MODULE(Branches);

int main() {
  torch::Device device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  Branches model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision [note] "runs Linear layers in plain float32"
    std::vector<torch::Tensor> inputs;
    inputs.push_back(torch::randn({8, 16}, device));
    inputs.push_back(torch::randn({8, 16}, device));
    std::vector<torch::Tensor> outputs = model->forward(inputs);
    auto loss = torch::stack(outputs).pow(2).mean();
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    // stack() of the module's outputs: on the GPU.
    std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration, so"
    std::vector<torch::Tensor> pieces = outputs.front().split(2);
    std::cout << pieces[0].sum().item<float>() << "\n"; // expect: torch-sync-in-loop
    std::vector<torch::Tensor> listed = {outputs.at(0), outputs.at(1)};
    std::cout << torch::cat(listed).sum().item<float>() << "\n"; // expect: torch-sync-in-loop

    // Sequences of host tensors: reading them waits for no GPU.
    std::vector<torch::Tensor> host = {torch::ones({2}), torch::zeros({2})};
    std::cout << torch::cat(host).sum().item<float>() << "\n";
    std::vector<torch::Tensor> counts(2);
    counts[0] = torch::ones({1});
    counts.at(1) = torch::zeros({1});
    std::cout << counts.at(1).item<float>() << "\n";
    std::cout << torch::stack({torch::ones({1}), torch::ones({1})})
                     .sum()
                     .item<float>()
              << "\n";
  }
}
