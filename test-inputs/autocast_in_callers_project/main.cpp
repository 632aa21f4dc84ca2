#include "losses.h"

int main(int argc, char **argv) {
  torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  torch::nn::Linear model(64, 10);
  train(model, device, argc > 1);
  train_region_closed_first(model, device);
}
