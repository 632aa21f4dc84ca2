// Whole-program check of torch-unsynchronized-timing's replay ratio: an
// inference loop that times each forward pass with the host clock, without
// waiting for the GPU, and then reads the result back (so the GPU is idle
// when the next interval starts). It prints the sum of the intervals it
// measured; the fixed twin prints the sum of the true ones. Their ratio is
// how many times the program understates its forward pass, which the replay
// measures from this program's recipe: the Sequential below on a fixed
// [256, 1024] input on the device, without autograd.
// unsynchronized-timing.fixed.cpp is the same program with the fix.
#include <torch/torch.h>

#include "harness.h"

#include <chrono>

int main(int argc, char **argv) {
  const int steps = stepsArgument(argc, argv, 1000);
  const int warmup = warmupArgument(argc, argv, steps, 20);
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::NoGradGuard no_grad;

  torch::nn::Sequential model(torch::nn::Linear(1024, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 1024));
  model->to(device);
  model->eval();
  auto input = torch::randn({256, 1024}, device);

  double measured = 0;
  double checksum = 0;
  for (int step = 0; step < warmup + steps; ++step) {
    auto begin = std::chrono::steady_clock::now();
    auto output = model->forward(input);
    auto end = std::chrono::steady_clock::now();
    if (step >= warmup)
      measured += std::chrono::duration<double>(end - begin).count();
    checksum += output.sum().item<double>();
  }

  std::fprintf(stderr, "checksum: %f\n", checksum);
  std::printf("{\"program\": \"%s\", \"steps\": %d, \"seconds\": %.6f, "
              "\"device\": \"%s\"}\n",
              "unsynchronized-timing", steps, measured,
              device.is_cuda() ? "cuda" : "cpu");
  return 0;
}
