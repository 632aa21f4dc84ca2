#include "losses.h"

int main() {
  torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  train(device);
  shifted(torch::randn({2, 4}, device), device);
}
