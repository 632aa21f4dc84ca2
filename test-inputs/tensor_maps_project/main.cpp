#include "meters.h"

int main() {
  torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  torch::nn::Linear model(64, 10);
  train(model, device);
}
