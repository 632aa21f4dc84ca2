// Whole-program check of torch-eval-without-no-grad's replay ratio: an
// evaluation loop that runs the model in eval() mode while autograd records
// the graph, timed as a whole, to compare with the speed-up the replay
// measures from this program's recipe. The work is the replay's: each step
// runs the Sequential below forward on 20 batches of the same [256, 1024]
// input on the device, keeps the predictions (their graphs alive) and sums
// them.
// eval-without-no-grad.fixed.cpp is the same program with the fix.
#include <torch/torch.h>

#include "harness.h"

#include <chrono>
#include <vector>

int main(int argc, char **argv) {
  const int steps = stepsArgument(argc, argv, 300);
  const int warmup = warmupArgument(argc, argv, steps, 20);
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);

  torch::nn::Sequential model(torch::nn::Linear(1024, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 1024));
  model->to(device);
  model->eval();
  auto input = torch::randn({256, 1024}, device);

  torch::Tensor summary;
  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < warmup + steps; ++step) {
    if (step == warmup) {
      if (device.is_cuda())
        torch::cuda::synchronize();
      start = std::chrono::steady_clock::now();
    }
    std::vector<torch::Tensor> predictions;
    for (int batch = 0; batch < 20; ++batch)
      predictions.push_back(model->forward(input));
    summary = torch::stack(predictions).sum(0).detach();
  }
  if (device.is_cuda())
    torch::cuda::synchronize();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  printResult("eval-without-no-grad", steps, seconds, device.is_cuda());
  return 0;
}
