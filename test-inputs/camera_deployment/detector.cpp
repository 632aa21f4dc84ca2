#include "detector.h"

Detector::Detector(const std::string &path, const std::string &device)
    : module_(torch::jit::load(path)), device_(device) {
  // A TorchScript detector: its convolutions are in the file.
  module_.to(device_); // expect: torch-cudnn-benchmark-off [note] "'module_' is a TorchScript module run on the GPU"
  module_.eval();
}

std::vector<Box> Detector::detect(Frame &frame) {
  torch::NoGradGuard no_grad;
  // The frame is widened on the host and copied from pageable memory, once
  // per frame: main.cpp's loop calls detect() on every frame.
  auto pixels = torch::from_blob(frame.pixels.data(), {frame.rows, frame.cols, 3},
                                 torch::kByte);
  auto input = pixels.permute({2, 0, 1}).unsqueeze(0).to(torch::kFloat).div(255);
  auto on_device = input.to(device_); // expect: torch-pageable-copy [warning] "copied to the GPU from pageable host memory on every iteration", torch-widen-before-copy [note] "'input' is widened from uint8 to float32 on the host"
  auto output = module_.forward({on_device}).toTensor();
  return boxes_of(output, 0.5f);
}

// main.cpp calls this with recording on: no unit of the program trains, so
// the graph is recorded for nothing, wherever the result goes.
torch::Tensor Detector::score(const torch::Tensor &input) {
  return module_.forward({input}).toTensor(); // expect: torch-eval-without-no-grad [warning] "'module_' runs forward for inference while autograd records"
}

// main.cpp calls this only under a guard: recording is off already.
torch::Tensor Detector::embed(const torch::Tensor &input) {
  return module_.forward({input}).toTensor();
}
