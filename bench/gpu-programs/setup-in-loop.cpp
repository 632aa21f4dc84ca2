// Whole-program check of torch-setup-in-loop's replay ratio: a training loop
// that builds a new optimizer on every step, timed as a whole, to compare
// with the speed-up the replay measures from this program's recipe. The
// work is the replay's: a step of the Sequential below on a fixed [32, 1024]
// input and target on the device (mean squared error), SGD with momentum 0.9
// and learning rate 0.01.
// setup-in-loop.fixed.cpp is the same program with the fix.
#include <torch/torch.h>

#include "harness.h"

#include <chrono>

int main(int argc, char **argv) {
  const int steps = stepsArgument(argc, argv, 2000);
  const int warmup = warmupArgument(argc, argv, steps, 20);
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);

  torch::nn::Sequential model(torch::nn::Linear(1024, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 1024));
  model->to(device);
  auto input = torch::randn({32, 1024}, device);
  auto target = torch::randn({32, 1024}, device);

  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < warmup + steps; ++step) {
    if (step == warmup) {
      if (device.is_cuda())
        torch::cuda::synchronize();
      start = std::chrono::steady_clock::now();
    }
    torch::optim::SGD optimizer(model->parameters(),
                                torch::optim::SGDOptions(0.01).momentum(0.9));
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

  printResult("setup-in-loop", steps, seconds, device.is_cuda());
  return 0;
}
