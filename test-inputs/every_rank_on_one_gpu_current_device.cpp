// torch-every-rank-on-one-gpu: the current device is set from the rank
// (cudaSetDevice, a device guard), so a device without an index follows it;
// an explicit index 0 is still the same GPU for every process.
#include <torch/torch.h>

#include <cstdlib>

extern "C" int cudaSetDevice(int device);

int rank_of_this_process() {
  const char *rank = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK"); // expect-note: "'OMPI_COMM_WORLD_LOCAL_RANK' is read here"
  return rank ? std::atoi(rank) : 0;
}

void set_up() { cudaSetDevice(rank_of_this_process()); }

void follows_the_current_device(torch::nn::Linear &model, torch::Tensor x) {
  if (!torch::cuda::is_available())
    return;
  model->to(torch::kCUDA);
  auto y = x.cuda();
  (void)y;
}

void guarded(torch::Tensor x, int rank) {
  if (!torch::cuda::is_available())
    return;
  c10::DeviceGuard guard(torch::Device(torch::kCUDA, rank));
  auto y = x.to(torch::kCUDA);
  (void)y;
}

torch::Device first_gpu_anyway() {
  return torch::Device("cuda:0"); // expect: torch-every-rank-on-one-gpu [warning] "GPU 0"
}

int main() {
  set_up();
  return 0;
}
