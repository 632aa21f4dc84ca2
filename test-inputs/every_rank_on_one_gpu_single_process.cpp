// torch-every-rank-on-one-gpu: a program that runs as one process may use
// the default GPU: nothing is reported.
#include <torch/torch.h>

void to_the_gpu(torch::nn::Linear &model, torch::Tensor &x) {
  if (!torch::cuda::is_available())
    return;
  model->to(torch::kCUDA);
  x = x.to(torch::Device("cuda:0"));
}

int main() {}
