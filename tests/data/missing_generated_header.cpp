// A unit whose generated header is not there yet, as in a CI job that runs
// the analyzer before the build: it is analyzed where clang recovered.
#include <torch/torch.h>

#include "generated/model_config.h"

int main() {
  torch::Device device(torch::kCUDA);
  torch::nn::Linear model(4, 2);
  model->to(device);
  torch::NoGradGuard no_grad;
  auto input = torch::randn({8, 4});
  auto output = model(input);
  // Clang could not make sense of this statement: nothing is reported here.
  auto scaled = model(torch::randn({8, 4}) * generated::input_scale);
  return static_cast<int>(output.size(0));
}
