#include <torch/torch.h>

#include "project_model.h"

int main() {
  auto x = torch::ones({2}).cuda();
  return on_gpu(x).numel() > 0 ? 0 : 1;
}
