// torch-every-rank-on-one-gpu: a program that runs as one process per rank
// (here: it reads LOCAL_RANK) and spells its CUDA device without the rank,
// so every process works on the same GPU. A device index from the rank, CPU
// devices and devices named at run time are fine.
#include <torch/torch.h>

#include <cstdlib>
#include <string>

int local_rank() {
  const char *rank = std::getenv("LOCAL_RANK"); // expect-note: "the program runs as one process per rank: 'LOCAL_RANK' is read here"
  return rank ? std::atoi(rank) : 0;
}

void module_to_device_type(torch::nn::Linear &model) {
  if (!torch::cuda::is_available())
    return;
  model->to(torch::kCUDA); // expect: torch-every-rank-on-one-gpu [warning] "every process of this multi-process program puts this on the current GPU, GPU 0 unless set, so one GPU does the work of every rank while the others stay idle" // expect-note: "choose the GPU from the local rank, 'torch::Device(torch::kCUDA, local_rank)'"
}

torch::Device device_of_kind() {
  return torch::Device(torch::kCUDA); // expect: torch-every-rank-on-one-gpu [warning] "the current GPU"
}

torch::Device from_a_string() {
  return torch::Device("cuda"); // expect: torch-every-rank-on-one-gpu
}

torch::Device first_gpu_by_name() {
  return torch::Device("cuda:0"); // expect: torch-every-rank-on-one-gpu [warning] "puts this on GPU 0 so one GPU"
}

torch::Device first_gpu_by_index() {
  return torch::Device(torch::kCUDA, 0); // expect: torch-every-rank-on-one-gpu [warning] "GPU 0"
}

torch::Device second_gpu_for_all() {
  return torch::Device(std::string("cuda:1")); // expect: torch-every-rank-on-one-gpu [warning] "GPU 1"
}

torch::Device enum_spelling() {
  return torch::Device(torch::DeviceType::CUDA); // expect: torch-every-rank-on-one-gpu
}

torch::Device gpu_if_any() {
  return torch::Device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU); // expect: torch-every-rank-on-one-gpu [warning] "the current GPU"
}

torch::Tensor tensor_cuda(torch::Tensor x) {
  if (!torch::cuda::is_available())
    return x;
  return x.cuda(); // expect: torch-every-rank-on-one-gpu [warning] "the current GPU"
}

torch::Tensor tensor_to(torch::Tensor x) {
  if (!torch::cuda::is_available())
    return x;
  return x.to(torch::kCUDA); // expect: torch-every-rank-on-one-gpu
}

// Not reported.

torch::Device from_the_rank() {
  return torch::Device(torch::kCUDA, local_rank());
}

torch::Device from_the_rank_modulo(int rank) {
  return torch::Device(torch::kCUDA, rank % torch::cuda::device_count());
}

torch::Device from_a_spelled_rank() {
  return torch::Device("cuda:" + std::to_string(local_rank()));
}

torch::Device named_at_run_time(const std::string &spec) {
  return torch::Device(spec);
}

torch::Device on_the_cpu() { return torch::Device(torch::kCPU); }

int main() { return local_rank(); }
