// torch-cuda-visible-devices-in-code: CUDA_VISIBLE_DEVICES set where it no
// longer has any effect (after CUDA has started) or set to hide every GPU.
// Setting it first, reading it, and other variables are fine.
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>

bool has_gpu() { return torch::cuda::is_available(); }

void pin_to_second_gpu() {
  setenv("CUDA_VISIBLE_DEVICES", "1", 1); // expect: torch-cuda-visible-devices-in-code [warning] "'CUDA_VISIBLE_DEVICES' is set after CUDA was initialised, so the change is silently" // expect-note: "CUDA reads it once, at initialisation: set"
}

void after_availability_check() {
  if (torch::cuda::is_available())
    setenv("CUDA_VISIBLE_DEVICES", "0", 1); // expect: torch-cuda-visible-devices-in-code
}

void after_device_count() {
  auto count = torch::cuda::device_count();
  setenv("CUDA_VISIBLE_DEVICES", count > 1 ? "1" : "0", 1); // expect: torch-cuda-visible-devices-in-code
}

void after_tensor_on_gpu() {
  if (!torch::cuda::is_available())
    return;
  auto x = torch::rand({2}).cuda();
  setenv("CUDA_VISIBLE_DEVICES", "0,1", 1); // expect: torch-cuda-visible-devices-in-code
  std::cout << x << "\n";
}

void after_model_moved(torch::Device device) {
  torch::nn::Linear model(4, 2);
  model->to(device);
  putenv(const_cast<char *>("CUDA_VISIBLE_DEVICES=1")); // expect: torch-cuda-visible-devices-in-code
}

void after_helper_that_checks() {
  bool gpu = has_gpu();
  setenv("CUDA_VISIBLE_DEVICES", gpu ? "0" : "", 1); // expect: torch-cuda-visible-devices-in-code
}

void after_seeding_the_gpus() {
  torch::cuda::manual_seed_all(0);
  setenv("CUDA_VISIBLE_DEVICES", "2", 1); // expect: torch-cuda-visible-devices-in-code
}

void after_factory_on_the_gpu(torch::Device device) {
  auto x = torch::zeros({2}, torch::TensorOptions().device(device));
  setenv("CUDA_VISIBLE_DEVICES", "3", 0); // expect: torch-cuda-visible-devices-in-code
  std::cout << x << "\n";
}

void hide_every_gpu() {
  setenv("CUDA_VISIBLE_DEVICES", "", 1); // expect: torch-cuda-visible-devices-in-code
}

void hide_every_gpu_with_putenv() {
  putenv(const_cast<char *>("CUDA_VISIBLE_DEVICES=")); // expect: torch-cuda-visible-devices-in-code
}

// Fine.

void choose_before_anything() {
  setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  std::cout << torch::cuda::is_available() << "\n";
}

void other_variables_after_init() {
  std::cout << torch::cuda::device_count() << "\n";
  setenv("OMP_NUM_THREADS", "4", 1);
  putenv(const_cast<char *>("CUBLAS_WORKSPACE_CONFIG=:4096:8"));
}

void read_after_init() {
  std::cout << torch::cuda::is_available() << "\n";
  if (const char *visible = std::getenv("CUDA_VISIBLE_DEVICES"))
    std::cout << visible << "\n";
}

void device_named_but_unused() {
  torch::Device device(torch::kCUDA);
  setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  std::cout << device << "\n";
}

void cpu_work_first() {
  auto x = torch::rand({2, 2}).matmul(torch::rand({2, 2}));
  setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  std::cout << x << "\n";
}

void cpu_move_first() {
  auto x = torch::rand({2}).to(torch::kCPU);
  setenv("CUDA_VISIBLE_DEVICES", "1", 1);
  std::cout << x << "\n";
}

void configure_environment() { setenv("CUDA_VISIBLE_DEVICES", "0,1", 1); }

// Called before any CUDA call: the setting takes effect.
void init_comes_later() {
  configure_environment();
  std::cout << torch::cuda::device_count() << "\n";
}

void order_respected() {
  putenv(const_cast<char *>("CUDA_VISIBLE_DEVICES=0"));
  if (has_gpu())
    std::cout << "gpu\n";
}

void unset_the_variable_first() {
  unsetenv("CUDA_VISIBLE_DEVICES");
  std::cout << torch::cuda::is_available() << "\n";
}

void nonempty_setting_first() {
  setenv("CUDA_VISIBLE_DEVICES", "0", 1);
}

// The functions above marked fine are not called here: a call after the
// first CUDA call would make their setting come too late as well.
int main() {
  hide_every_gpu();
  hide_every_gpu_with_putenv();
  after_availability_check();
  after_device_count();
  after_tensor_on_gpu();
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  after_model_moved(device);
  after_helper_that_checks();
  after_seeding_the_gpus();
  after_factory_on_the_gpu(device);
  pin_to_second_gpu();
}
