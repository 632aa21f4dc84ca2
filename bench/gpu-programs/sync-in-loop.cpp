// Whole-program check of torch-sync-in-loop's replay ratio: a training loop
// that reads the loss back to the host ('loss.item<float>()') on every step,
// timed as a whole, to compare with the speed-up the replay measures from
// this program's recipe. The work is the replay's: a step of the Sequential
// below on a fixed input and target on the device (mean squared error, SGD
// with learning rate 0.01). The recipe names no input, so the replay assumes
// a batch of 32 samples shaped for the first layer; the program uses exactly
// that: a [32, 1024] input.
// sync-in-loop.fixed.cpp is the same program with the fix.
#include <torch/torch.h>

#include "harness.h"

#include <chrono>

int main(int argc, char **argv) {
  const int steps = stepsArgument(argc, argv, 5000);
  const int warmup = warmupArgument(argc, argv, steps, 20);
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);

  torch::nn::Sequential model(torch::nn::Linear(1024, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 1024));
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.01));
  auto input = torch::randn({32, 1024}, device);
  auto target = torch::randn({32, 1024}, device);

  float total = 0;
  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < warmup + steps; ++step) {
    if (step == warmup) {
      if (device.is_cuda())
        torch::cuda::synchronize();
      start = std::chrono::steady_clock::now();
    }
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(input), target);
    loss.backward();
    optimizer.step();
    total += loss.item<float>();
  }
  if (device.is_cuda())
    torch::cuda::synchronize();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  std::fprintf(stderr, "summed loss: %f\n", total);
  printResult("sync-in-loop", steps, seconds, device.is_cuda());
  return 0;
}
