// Whole-program check of torch-missing-mixed-precision's replay ratio: a CUDA
// training loop over Linear layers in plain float32, timed as a whole, to
// compare with the speed-up the replay measures from this program's recipe.
// The work is the replay's: a step of the Sequential below on a fixed
// [256, 1024] input and target on the device (mean squared error, SGD with
// learning rate 0.01), with libtorch's default TF32 settings.
// This is the fixed twin of missing-mixed-precision.cpp. The fix, the one the
// replay times: bfloat16 CUDA autocast around the forward pass and the loss
// (its output cast back to float32), the cast cache cleared after the region,
// backward and the optimizer step outside it; weights stay in float32.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "harness.h"

#include <chrono>

// libtorch 2.4 and later switch autocast per device type; earlier versions
// have one switch for CUDA.
#if TORCH_VERSION_MAJOR > 2 ||                                                 \
    (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define AUTOCAST_BY_DEVICE 1
#else
#define AUTOCAST_BY_DEVICE 0
#endif

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
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.01));
  auto input = torch::randn({256, 1024}, device);
  auto target = torch::randn({256, 1024}, device);
#if AUTOCAST_BY_DEVICE
  at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
#else
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
#endif

  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < warmup + steps; ++step) {
    if (step == warmup) {
      if (device.is_cuda())
        torch::cuda::synchronize();
      start = std::chrono::steady_clock::now();
    }
    optimizer.zero_grad();
#if AUTOCAST_BY_DEVICE
    at::autocast::set_autocast_enabled(at::kCUDA, true);
#else
    at::autocast::set_enabled(true);
#endif
    auto loss =
        torch::mse_loss(model->forward(input).to(torch::kFloat), target);
#if AUTOCAST_BY_DEVICE
    at::autocast::set_autocast_enabled(at::kCUDA, false);
#else
    at::autocast::set_enabled(false);
#endif
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
  if (device.is_cuda())
    torch::cuda::synchronize();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  printResult("missing-mixed-precision.fixed", steps, seconds, device.is_cuda());
  return 0;
}
