// Whole-program check of torch-pageable-copy's replay ratio: a training loop
// that stages each step's batch in pageable host memory and copies it to the
// GPU, timed as a whole, to compare with the speed-up the replay measures
// from this program's recipe. The work is the replay's: a fresh [256, 4096]
// float32 staging tensor filled from the host source and copied each step
// (one copy per step), then a step of the Sequential below (mean squared
// error against a fixed target on the device, SGD with learning rate 0.01).
// pageable-copy.fixed.cpp is the same program with the fix.
#include <torch/torch.h>

#include "harness.h"

#include <chrono>

int main(int argc, char **argv) {
  const int steps = stepsArgument(argc, argv, 1000);
  const int warmup = warmupArgument(argc, argv, steps, 20);
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);

  torch::nn::Sequential model(torch::nn::Linear(4096, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 1024));
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.01));
  // What the data source produces each step, in host memory.
  auto source = torch::randn({256, 4096});
  auto target = torch::randn({256, 1024}, device);

  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < warmup + steps; ++step) {
    if (step == warmup) {
      if (device.is_cuda())
        torch::cuda::synchronize();
      start = std::chrono::steady_clock::now();
    }
    auto staged = torch::empty({256, 4096});
    staged.copy_(source);
    auto input = staged.to(device);
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(input), target);
    loss.backward();
    optimizer.step();
  }
  if (device.is_cuda())
    torch::cuda::synchronize();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  printResult("pageable-copy", steps, seconds, device.is_cuda());
  return 0;
}
