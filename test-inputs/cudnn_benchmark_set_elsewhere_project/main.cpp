#include "trainer.h"

int main() {
  torch::Device device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  at::globalContext().setBenchmarkCuDNN(device.is_cuda());
  train(device, 10);
}
