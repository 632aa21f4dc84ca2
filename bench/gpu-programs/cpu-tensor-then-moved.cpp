// Whole-program check of torch-cpu-tensor-then-moved's replay ratio: a loop
// that creates a [256, 1024] float32 tensor with torch::randn on the CPU on
// every step only to move it to the GPU, timed as a whole, to compare with
// the speed-up the replay measures from this program's recipe. The recipe
// describes the tensor and nothing else, and the replay times its creation
// and move alone; so does this program, which keeps the last tensor and does
// no other work.
// cpu-tensor-then-moved.fixed.cpp is the same program with the fix.
#include <torch/torch.h>

#include "harness.h"

#include <chrono>

int main(int argc, char **argv) {
  const int steps = stepsArgument(argc, argv, 1000);
  const int warmup = warmupArgument(argc, argv, steps, 20);
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);

  torch::Tensor noise;
  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < warmup + steps; ++step) {
    if (step == warmup) {
      if (device.is_cuda())
        torch::cuda::synchronize();
      start = std::chrono::steady_clock::now();
    }
    noise = torch::randn({256, 1024}).to(device);
  }
  if (device.is_cuda())
    torch::cuda::synchronize();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  printResult("cpu-tensor-then-moved", steps, seconds, device.is_cuda());
  return 0;
}
