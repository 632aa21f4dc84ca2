#include "batch.h"

Batch Batch::to(const torch::Device &device) const {
  return {inputs.to(device), targets.to(device)};
}

void Sample::to(const torch::TensorOptions &options) {
  image = image.to(options);
  boxes = boxes.to(options);
}
