// torch-unchecked-cuda: CUDA used on a path that never checked that it is
// there. On a machine without a GPU, or with a CPU-only libtorch, the
// program aborts at these lines instead of falling back to the CPU.
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <stdexcept>

torch::nn::Linear make_model() { return torch::nn::Linear(32, 8); }

void device_variable() {
  torch::NoGradGuard no_grad;
  torch::Device device(torch::kCUDA); // expect: torch-unchecked-cuda [warning] "'torch"
  auto model = make_model();
  model->to(device);
  model(torch::randn({4, 32}, torch::TensorOptions().device(device))); // expect: torch-eval-without-no-grad [warning] "'model' runs forward for inference while autograd records"
}

void tensor_cuda_call() {
  auto x = torch::randn({4, 32}).cuda(); // expect: torch-unchecked-cuda
  std::cout << x.sum().item<float>() << "\n";
}

void device_string() {
  auto model = make_model();
  model->to(torch::Device("cuda:0")); // expect: torch-unchecked-cuda
}

void module_to_cuda() {
  auto model = make_model();
  model->to(torch::kCUDA); // expect: torch-unchecked-cuda
}

void options_on_cuda() {
  auto options = torch::TensorOptions().dtype(torch::kFloat).device(torch::kCUDA); // expect: torch-unchecked-cuda
  auto weights = torch::zeros({8, 8}, options);
}

void enumerator_and_index() {
  auto x = torch::ones({2, 2});
  auto a = x.to(torch::Device(torch::DeviceType::CUDA)); // expect: torch-unchecked-cuda
  auto b = x.to(c10::Device(c10::kCUDA, 1)); // expect: torch-unchecked-cuda
}

// The check guards one block; the GPU is used after it.
void check_does_not_cover() {
  torch::Device device(torch::kCPU);
  if (torch::cuda::is_available())
    std::cout << "CUDA devices: " << torch::cuda::device_count() << "\n";
  device = torch::Device(torch::kCUDA); // expect: torch-unchecked-cuda
  make_model()->to(device);
}

// The result of the check is thrown away.
void check_ignored() {
  torch::cuda::is_available();
  auto x = torch::rand({3}).to(torch::kCUDA); // expect: torch-unchecked-cuda
}

// A user flag is not an availability check.
void user_flag(bool use_gpu) {
  auto model = make_model();
  model->to(use_gpu ? torch::kCUDA : torch::kCPU); // expect: torch-unchecked-cuda
}

// The helper is called from a path without a check.
void place_on_gpu(torch::nn::Linear &model) {
  model->to(torch::kCUDA); // expect: torch-unchecked-cuda
}

void unchecked_caller() {
  auto model = make_model();
  place_on_gpu(model);
}

// A lambda made on an unchecked path.
void lambda_on_unchecked_path() {
  auto to_gpu = [](const torch::Tensor &x) { return x.cuda(); }; // expect: torch-unchecked-cuda
  to_gpu(torch::ones({2}));
}

// Correct: the device is chosen by availability.
void chosen_by_availability() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  make_model()->to(device);
  auto count_based = torch::cuda::device_count() > 0 ? torch::kCUDA : torch::kCPU;
  torch::randn({2}).to(count_based);
}

void used_inside_check() {
  torch::NoGradGuard no_grad;
  auto model = make_model();
  if (torch::cuda::is_available()) {
    model->to(torch::kCUDA);
    auto x = torch::randn({4, 32}).cuda();
    model(x); // expect: torch-eval-without-no-grad
  }
}

int early_return() {
  if (!torch::cuda::is_available()) {
    std::cerr << "this program needs a GPU\n";
    return 1;
  }
  auto model = make_model();
  model->to(torch::kCUDA);
  return 0;
}

void torch_check() {
  TORCH_CHECK(torch::cuda::is_available(), "this program needs a GPU");
  auto x = torch::ones({2}, torch::TensorOptions().device(torch::kCUDA));
}

void throws_without_gpu() {
  if (!torch::cuda::is_available())
    throw std::runtime_error("no GPU");
  auto x = torch::ones({2}).cuda();
}

void exits_without_gpu() {
  if (torch::cuda::device_count() == 0)
    std::exit(1);
  make_model()->to(torch::Device("cuda"));
}

void flag_from_check() {
  const bool use_cuda = torch::cuda::is_available();
  auto x = torch::ones({2});
  if (use_cuda)
    x = x.to(torch::kCUDA);
}

void flag_and_check(bool want_gpu) {
  if (want_gpu && torch::cuda::is_available())
    make_model()->to(torch::kCUDA);
}

// The fallback: CUDA by default, the CPU when it is missing.
void fallback_to_cpu() {
  torch::Device device(torch::kCUDA);
  if (!torch::cuda::is_available())
    device = torch::Device(torch::kCPU);
  make_model()->to(device);
}

// Only compared with, never used to place anything.
void comparisons(const torch::Tensor &x) {
  if (x.device().type() == torch::kCUDA)
    std::cout << "on the GPU\n";
  switch (x.device().type()) {
  case torch::kCUDA:
    std::cout << "cuda\n";
    break;
  default:
    break;
  }
  torch::Device unused(torch::kCUDA);
  std::cout << unused << "\n";
}

// Every caller checks first.
void place_checked(torch::nn::Linear &model) { model->to(torch::kCUDA); }

void checked_caller() {
  auto model = make_model();
  if (torch::cuda::is_available())
    place_checked(model);
}

// A lambda made inside the check.
void lambda_inside_check() {
  if (torch::cuda::is_available()) {
    auto to_gpu = [](const torch::Tensor &x) { return x.cuda(); };
    to_gpu(torch::ones({2}));
  }
}

// A test that the device the program chose is a GPU is not a new choice of
// one: whether CUDA works was settled where the device was chosen (checked
// here), and is reported there when it was not.
torch::Tensor follow_the_chosen_device(const torch::Tensor &x,
                                       const torch::Device &device) {
  if (device.is_cuda())
    return x.to(torch::kCUDA);
  if (device.type() == torch::kCUDA && x.dim() > 1)
    return x.cuda();
  return x;
}

void chooses_then_follows() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  std::cout << follow_the_chosen_device(torch::ones({2}), device).sum().item<float>()
            << "\n";
}

int main(int argc, char **argv) {
  device_variable();
  tensor_cuda_call();
  device_string();
  module_to_cuda();
  options_on_cuda();
  enumerator_and_index();
  check_does_not_cover();
  check_ignored();
  user_flag(argc > 1);
  chooses_then_follows();
  unchecked_caller();
  lambda_on_unchecked_path();
  chosen_by_availability();
  used_inside_check();
  early_return();
  torch_check();
  throws_without_gpu();
  exits_without_gpu();
  flag_from_check();
  flag_and_check(argc > 2);
  fallback_to_cpu();
  comparisons(torch::ones({1}));
  checked_caller();
  lambda_inside_check();
}
