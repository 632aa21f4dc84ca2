// A camera detector as deployments write it, split over three units: the
// detector class with a TorchScript module member (detector.cpp), the
// post-processing of its output (postprocess.cpp) and the frame loop in main
// (main.cpp). The device is a flag, a string; the per-frame work is reached
// only through calls into other units, so each unit learns from the others'
// summaries that its code runs on every frame.
#pragma once

#include <torch/script.h>
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

struct Frame {
  int rows = 480, cols = 640;
  std::vector<std::uint8_t> pixels = std::vector<std::uint8_t>(480 * 640 * 3);
};

struct Box {
  float x0, y0, x1, y1, score;
};

class Detector {
public:
  Detector(const std::string &path, const std::string &device);
  std::vector<Box> detect(Frame &frame);
  torch::Tensor score(const torch::Tensor &input);
  torch::Tensor embed(const torch::Tensor &input);

private:
  torch::jit::script::Module module_;
  torch::Device device_;
};

std::vector<Box> boxes_of(const torch::Tensor &output, float threshold);
int count_confident(const torch::Tensor &scores);
