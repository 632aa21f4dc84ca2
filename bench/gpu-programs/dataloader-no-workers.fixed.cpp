// Whole-program check of torch-dataloader-no-workers's replay ratio: a
// training loop over a DataLoader whose dataset does CPU work for every
// sample (a decode and augmentation stand-in of about 250 us), with no
// worker threads, so the main thread prepares each batch while the GPU
// waits. The work is the replay's: batches of 32 samples, each a [1024]
// float vector, a step of the Sequential below per batch (mean squared
// error against a fixed target on the device, SGD with learning rate 0.01).
// This is the fixed twin of dataloader-no-workers.cpp. The fix: four worker
// threads prepare the batches while the main thread trains.
#include <torch/torch.h>

#include "harness.h"

#include <chrono>

namespace {

/// Samples made on the CPU on demand, at about 250 us each.
class SyntheticImages : public torch::data::Dataset<SyntheticImages> {
public:
  explicit SyntheticImages(size_t count) : count_(count) {}

  torch::data::Example<> get(size_t index) override {
    auto begin = std::chrono::steady_clock::now();
    auto sample = torch::full({1024}, static_cast<float>(index % 97) / 97);
    // The decode-and-augment work a real dataset does per sample.
    while (std::chrono::steady_clock::now() - begin <
           std::chrono::microseconds(250))
      sample = sample * 0.999f + 0.001f;
    return {sample, torch::tensor(static_cast<int64_t>(index % 10))};
  }

  torch::optional<size_t> size() const override { return count_; }

private:
  size_t count_;
};

} // namespace

int main(int argc, char **argv) {
  const int steps = stepsArgument(argc, argv, 192);
  const int warmup = warmupArgument(argc, argv, steps, 8);
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);

  torch::nn::Sequential model(torch::nn::Linear(1024, 4096), torch::nn::ReLU(),
                              torch::nn::Linear(4096, 1024));
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.01));
  auto target = torch::randn({32, 1024}, device);
  // One epoch of warmup + steps batches; the first warm up (threads,
  // allocator, kernels) and are not timed.
  auto dataset = SyntheticImages(32 * static_cast<size_t>(warmup + steps))
                     .map(torch::data::transforms::Stack<>());
  auto loader =
      torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
          std::move(dataset),
          torch::data::DataLoaderOptions().batch_size(32).workers(4));

  int batches = 0;
  auto start = std::chrono::steady_clock::now();
  for (auto &batch : *loader) {
    if (batches++ == warmup) {
      if (device.is_cuda())
        torch::cuda::synchronize();
      start = std::chrono::steady_clock::now();
    }
    auto input = batch.data.to(device);
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

  printResult("dataloader-no-workers.fixed", steps, seconds, device.is_cuda());
  return 0;
}
