// torch-missing-mixed-precision, negatives: a program that trains on the GPU
// in float32 with float32 matmul precision "high", which allows TF32: its matrix products
// already run on tensor cores, so none of its training loops is reported.
#include <torch/torch.h>

struct MlpImpl : torch::nn::Module {
  MlpImpl()
      : fc1(register_module("fc1", torch::nn::Linear(64, 128))),
        fc2(register_module("fc2", torch::nn::Linear(128, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    return fc2(torch::relu(fc1(x)));
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Mlp);

void train(Mlp &model, torch::optim::Optimizer &optimizer,
           torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64}, device)),
                                          torch::randint(10, {32}, device));
    loss.backward();
    optimizer.step();
  }
}

void train_sequential(torch::Device device) {
  torch::nn::Sequential model(torch::nn::Linear(32, 32), torch::nn::ReLU(),
                              torch::nn::Linear(32, 1));
  model->to(device);
  torch::optim::Adam optimizer(model->parameters());
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = model->forward(torch::randn({64, 32}, device)).pow(2).mean();
    loss.backward();
    optimizer.step();
  }
}

int main() {
  at::globalContext().setFloat32MatmulPrecision("high");
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Mlp model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  train(model, optimizer, device);
  train_sequential(device);
  return 0;
}
