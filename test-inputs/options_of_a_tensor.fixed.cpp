// Options read off a tensor carry its device: `x.to(t.options())` moves `x`
// to wherever `t` lives, whatever expression `t` is (a variable, a chain of
// calls, a parameter of the model). A device-mismatch error must not fire
// on a batch moved that way, and must fire when the tensor is on the CPU.
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

struct ScalerImpl : torch::nn::Module {
  ScalerImpl() { scale = register_buffer("scale", torch::ones(4)); }
  torch::Tensor forward(torch::Tensor x) { return x * scale; }
  torch::Tensor scale;
  torch::Tensor table = torch::zeros(4);
};
TORCH_MODULE(Scaler);

// Correct: the options of a tensor made on the device move the batch there.
void options_of_a_moved_chain(torch::Device device) {
  torch::NoGradGuard no_grad;
  Net model;
  model->to(device);
  // Made once, this tensor costs a few microseconds: not reported.
  auto on_device = torch::ones(1).to(torch::kFloat).to(device).options();
  for (int i = 0; i < 10; ++i) {
    // A change of dtype does not hide the factory.
    auto ones = torch::ones({4}, torch::TensorOptions().device(device)).to(torch::kFloat); // expect: torch-cpu-tensor-then-moved [warning] "tensor created on the CPU by 'torch::ones' only to be copied to the GPU on every iteration"
    std::vector<torch::Tensor> rows;
    for (int j = 0; j < 4; ++j)
      rows.push_back(torch::randn({4}).to(on_device)); // expect: torch-cpu-tensor-then-moved
    model->forward(torch::stack(rows) * ones);
  }
}

// Correct: the options of a parameter of the model (a plain tensor member
// would stay where it was made; a registered one moves with the module).
void options_of_a_parameter(torch::Device device) {
  torch::NoGradGuard no_grad;
  Net model;
  model->to(device);
  torch::Tensor weight = model->fc->weight;
  for (int step = 0; step < 10; ++step) {
    torch::Tensor x = torch::rand({3, 4}); // expect: torch-cpu-tensor-then-moved [warning] "tensor created on the CPU by 'torch::rand' only to be copied to the GPU on every iteration"
    model->forward(x.to(weight.options()));
  }
}

// A registered buffer moves with its module; a plain tensor member stays
// where it was made, so a copy to its options stays on the host.
void options_of_module_members(torch::Device device) {
  torch::NoGradGuard no_grad;
  Scaler scaler;
  scaler->to(device);
  for (int step = 0; step < 10; ++step) {
    scaler->forward(torch::rand({4}).to(scaler->scale.options())); // expect: torch-cpu-tensor-then-moved [warning]
    torch::Tensor lookup = torch::rand({4}).to(scaler->table.options());
    std::cout << lookup.sum().item<float>() << std::endl;
  }
}

// Wrong: the options of a tensor on the CPU keep the batch there.
void options_of_a_host_tensor(torch::Device device) {
  torch::NoGradGuard no_grad;
  Net model;
  model->to(device);
  auto host = torch::zeros(1).options();
  model->forward(torch::rand({3, 4}).to(host).to(device)); // expect: torch-device-mismatch [error]
}

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  options_of_a_moved_chain(device);
  options_of_a_parameter(device);
  options_of_module_members(device);
  options_of_a_host_tensor(device);
}
