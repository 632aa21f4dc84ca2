#include "detector.h"

std::vector<Box> boxes_of(const torch::Tensor &output, float threshold) {
  // The one copy of the frame's result to the host is the work itself.
  auto host = output.cpu();
  std::vector<Box> boxes;
  auto rows = host.accessor<float, 2>();
  for (int64_t i = 0; i < host.size(0); ++i)
    if (rows[i][4] > threshold)
      boxes.push_back({rows[i][0], rows[i][1], rows[i][2], rows[i][3], rows[i][4]});
  // A wait per detection on the device tensor: once per box, every frame.
  for (int64_t i = 0; i < output.size(0); ++i)
    if (output[i][4].item<float>() > threshold) // expect: torch-sync-in-loop [note] "waits for the GPU on every iteration"
      boxes.back().score = output[i][4].item<float>(); // expect: torch-sync-in-loop [warning] "waits for the GPU on every iteration"
  return boxes;
}

// Called once, after the loop: reads a device tensor once.
int count_confident(const torch::Tensor &scores) {
  return (scores > 0.5).sum().item<int>();
}
