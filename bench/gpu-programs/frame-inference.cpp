// Whole-program check of the replay on a deployment: a TorchScript model
// loaded once and run on every camera frame, timed as a whole. Frames
// arrive in host memory as 8-bit HWC images (as a cv::Mat holds them), are
// wrapped with from_blob and copied to the device from pageable memory
// (torch-pageable-copy), converted there, and run through the model while
// autograd records (torch-eval-without-no-grad); each frame's scores come
// back to the host. The model is the file TORCHLINT_MODEL names (the GPU
// check exports a small ResNet-like one from Python), or else one this
// program defines in TorchScript and saves itself, then loads as a
// deployment does.
// frame-inference.no-grad.cpp fixes the first, frame-inference.pinned.cpp
// the second; each is otherwise the same program.
#include <torch/script.h>
#include <torch/torch.h>

#include "harness.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace {

/// A small convolutional classifier in TorchScript, saved to Path.
void saveOwnModel(const std::string &Path) {
  torch::jit::Module model("FrameNet");
  model.register_parameter("conv1", torch::randn({32, 3, 3, 3}) * 0.1, false);
  model.register_parameter("conv2", torch::randn({64, 32, 3, 3}) * 0.05, false);
  model.register_parameter("head", torch::randn({10, 64}) * 0.1, false);
  model.define(R"(
def forward(self, x):
    x = torch.relu(torch.conv2d(x, self.conv1, None, [2, 2], [1, 1]))
    x = torch.relu(torch.conv2d(x, self.conv2, None, [2, 2], [1, 1]))
    return torch.matmul(x.mean([2, 3]), self.head.t())
)");
  model.save(Path);
}

} // namespace

int main(int argc, char **argv) {
  const int frames = stepsArgument(argc, argv, 2000);
  const int warmup = warmupArgument(argc, argv, frames, 20);
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  std::string path =
      std::getenv("TORCHLINT_MODEL") ? std::getenv("TORCHLINT_MODEL") : "";
  if (path.empty()) {
    path = (std::filesystem::temp_directory_path() / "frame-inference.pt")
               .string();
    saveOwnModel(path);
  }
  torch::jit::script::Module module = torch::jit::load(path);
  module.to(device);
  module.eval();

  const int64_t height = 224, width = 224;
  std::vector<uint8_t> frame(height * width * 3);
  int64_t label_sum = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < warmup + frames; ++i) {
    if (i == warmup) {
      if (device.is_cuda())
        torch::cuda::synchronize();
      start = std::chrono::steady_clock::now();
    }
    // The camera's next frame.
    std::fill(frame.begin(), frame.end(), static_cast<uint8_t>(i));
    auto pixels =
        torch::from_blob(frame.data(), {height, width, 3}, torch::kByte);
    auto input = pixels.to(device)
                     .permute({2, 0, 1})
                     .unsqueeze(0)
                     .to(torch::kFloat)
                     .div(255);
    auto scores = module.forward({input}).toTensor().to(torch::kCPU);
    label_sum += scores.argmax(1).item<int64_t>();
  }
  if (device.is_cuda())
    torch::cuda::synchronize();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  std::fprintf(stderr, "labels: %lld\n", static_cast<long long>(label_sum));
  printResult("frame-inference", frames, seconds, device.is_cuda());
  return 0;
}
