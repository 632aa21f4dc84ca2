// A call through a pointer to a member function names no method the
// analysis can follow: where its result lives is not known, so nothing rests
// on it, and the unit is analyzed (such a call once crashed the device flow).
#include <torch/torch.h>

struct Preprocess {
  torch::Tensor scale(torch::Tensor x) { return x * 2; }
  torch::Tensor shift(torch::Tensor x) { return x + 1; }
};

void train(bool scaled) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::nn::Linear model(4, 2);
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  Preprocess p;
  torch::Tensor (Preprocess::*step)(torch::Tensor) =
      scaled ? &Preprocess::scale : &Preprocess::shift;
  for (int i = 0; i < 10; ++i) { // expect: torch-missing-mixed-precision [note]
    auto x = (p.*step)(torch::randn({3, 4}, device));
    optimizer.zero_grad();
    auto loss = model(x).sum();
    loss.backward();
    optimizer.step();
  }
}

int main() {
  train(true);
  return 0;
}
