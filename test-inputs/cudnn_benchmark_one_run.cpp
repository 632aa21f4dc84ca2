// torch-cudnn-benchmark-off pays back only over repeated convolutions: the
// autotuner times every algorithm once per input shape. A program whose
// `main` runs a convolutional model once (one image, or a smoke test whose
// loop stops after its first batch) gains nothing from it and is not
// reported. A model run in a loop that repeats is; so is one handed to a
// function, which may run it repeatedly.
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : conv(register_module("conv", torch::nn::Conv2d(3, 8, 3))) {}
  torch::Tensor forward(torch::Tensor x) { return conv(x).mean(); }
  torch::nn::Conv2d conv{nullptr};
};
TORCH_MODULE(Net);

void evaluate(Net &net, torch::Device device) {
  torch::NoGradGuard no_grad;
  std::cout << net(torch::rand({1, 3, 64, 64}, device)) << "\n";
}

int main() {
  torch::Device device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  torch::NoGradGuard no_grad;

  // One image.
  Net single;
  single->to(device);
  std::cout << single(torch::rand({1, 3, 64, 64}, device)) << "\n";

  // A smoke test: the loop stops after its first batch.
  Net smoke;
  smoke->to(device);
  std::vector<torch::Tensor> batches(8, torch::rand({4, 3, 64, 64}));
  for (const auto &batch : batches) {
    std::cout << smoke->forward(batch.to(device)) << "\n";
    break;
  }

  // Handed to a function of the program: run there, perhaps repeatedly.
  Net handed;
  handed->to(device); // expect: torch-cudnn-benchmark-off [note] "'handed' runs convolutions on the GPU with cuDNN's autotuner off"
  evaluate(handed, device);

  // Every frame of a stream.
  torch::Device second = torch::cuda::is_available()
                             ? torch::Device(torch::kCUDA, 1)
                             : torch::Device(torch::kCPU);
  Net streamed;
  streamed->to(second); // expect: torch-cudnn-benchmark-off [note] "'streamed' runs convolutions on the GPU with cuDNN's autotuner off"
  for (int frame = 0; frame < 100; ++frame)
    std::cout << streamed(torch::rand({1, 3, 64, 64}, second)) << "\n";
}
