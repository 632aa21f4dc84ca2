// Modules moved through a container of module pointers or holders (`for
// (auto &net : nets) net->to(device);`): each module put in the container is
// moved wherever the code that walks the container moves it, so where it is
// is no longer known and calling it later with an input on the device is no
// mismatch. A module never put in the container stays on the CPU.
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <vector>

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}

void pointers_in_a_vector() {
  torch::Device device = pick_device();
  torch::nn::Linear encoder(16, 8);
  torch::nn::Linear decoder(8, 16);
  std::vector<std::shared_ptr<torch::nn::Module>> nets{encoder.ptr(),
                                                       decoder.ptr()};
  for (auto &net : nets)
    net->to(device);
  torch::NoGradGuard no_grad;
  auto x = torch::randn({4, 16}, torch::TensorOptions().device(device));
  std::cout << decoder(encoder(x)).sum() << "\n";
}

void holders_pushed_back() {
  torch::Device device = pick_device();
  torch::nn::Linear first(16, 16);
  torch::nn::Linear second(16, 16);
  std::vector<torch::nn::Linear> layers;
  layers.push_back(first);
  layers.push_back(second);
  for (auto &layer : layers)
    layer->to(device);
  torch::NoGradGuard no_grad;
  auto x = torch::randn({4, 16}, torch::TensorOptions().device(device));
  std::cout << second(first(x)).sum() << "\n";
}

void one_module_left_out() {
  torch::Device device = pick_device();
  torch::nn::Linear moved(16, 16);
  torch::nn::Linear forgotten(16, 16);
  std::vector<std::shared_ptr<torch::nn::Module>> nets{moved.ptr()};
  for (auto &net : nets)
    net->to(device);
  torch::NoGradGuard no_grad;
  auto x = torch::randn({4, 16}, torch::TensorOptions().device(device));
  std::cout << moved(x).sum() << "\n";
  std::cout << forgotten(x).sum() << "\n"; // expect: torch-device-mismatch [error] "input 'x' is on the GPU but module 'forgotten' is never moved off the CPU"
}

int main() {
  pointers_in_a_vector();
  holders_pushed_back();
  one_module_left_out();
}
