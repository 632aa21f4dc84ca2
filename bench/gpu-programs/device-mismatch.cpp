// Whole-program check of torch-device-mismatch's replay: an inference loop
// whose model is moved to the GPU while its [256, 1024] input is left on the
// CPU. On a GPU the first forward pass raises and the exception propagates
// (the program exits non-zero), as the replay confirms from this program's
// recipe; on the CPU both are on the CPU and it runs. The work is the
// replay's: the Sequential below run forward on the recipe's input.
// device-mismatch.fixed.cpp is the same program with the fix.
#include <torch/torch.h>

#include "harness.h"

#include <chrono>

int main(int argc, char **argv) {
  const int steps = stepsArgument(argc, argv, 4000);
  const int warmup = warmupArgument(argc, argv, steps, 20);
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);

  torch::nn::Sequential model(torch::nn::Linear(1024, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 1024));
  model->to(device);
  model->eval();
  torch::NoGradGuard no_grad;
  auto input = torch::randn({256, 1024});

  torch::Tensor output;
  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < warmup + steps; ++step) {
    if (step == warmup) {
      if (device.is_cuda())
        torch::cuda::synchronize();
      start = std::chrono::steady_clock::now();
    }
    output = model->forward(input);
  }
  if (device.is_cuda())
    torch::cuda::synchronize();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  printResult("device-mismatch", steps, seconds, device.is_cuda());
  return 0;
}
