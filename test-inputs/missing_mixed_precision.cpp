// torch-missing-mixed-precision: CUDA training loops over matrix-heavy
// layers (Linear, convolutions, attention, recurrent layers) in a program
// that never turns on autocast or TF32 matmuls: reported once per loop.
// Training on the CPU, inference, layers without matrix products, a module
// whose device is not known, and a nested loop are not; TF32 turned off or
// float32 matmul precision "highest" changes nothing. (Programs that do
// turn on autocast or TF32 are the negatives of other files: each such
// setting covers its whole program.)
#include <torch/torch.h>

#include <iostream>
#include <vector>

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

struct ConvNetImpl : torch::nn::Module {
  ConvNetImpl() {
    conv = register_module("conv", torch::nn::Conv2d(3, 16, 3));
    head = register_module("head", torch::nn::Linear(16, 10));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv(x)).mean({2, 3});
    return head(x);
  }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(ConvNet);

struct TaggerImpl : torch::nn::Module {
  TaggerImpl()
      : lstm(register_module("lstm", torch::nn::LSTM(32, 64))),
        out(register_module("out", torch::nn::Linear(64, 5))) {}
  torch::Tensor forward(torch::Tensor x) {
    return out(std::get<0>(lstm(x)));
  }
  torch::nn::LSTM lstm{nullptr};
  torch::nn::Linear out{nullptr};
};
TORCH_MODULE(Tagger);

// Only elementwise layers and normalisation: no matrix products.
struct ScalerImpl : torch::nn::Module {
  ScalerImpl() : norm(register_module("norm", torch::nn::LayerNorm(
                                                  torch::nn::LayerNormOptions({64})))) {}
  torch::Tensor forward(torch::Tensor x) { return torch::tanh(norm(x)); }
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(Scaler);

torch::Tensor targets(torch::Device device) {
  return torch::randint(10, {32}, device);
}

void train_step(Mlp &model, torch::optim::Optimizer &optimizer,
                torch::Device device) {
  optimizer.zero_grad();
  auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64}, device)),
                                        targets(device));
  loss.backward();
  optimizer.step();
}

// --- positives -------------------------------------------------------------

void linear_layers(Mlp &model, torch::optim::Optimizer &optimizer,
                   torch::Device device) {
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs Linear layers in"
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(
        model(torch::randn({32, 64}, device)), targets(device));
    loss.backward();
    optimizer.step();
  }
}

void convolutions(torch::Device device) {
  ConvNet model;
  model->to(device); // expect: torch-cudnn-benchmark-off [note] "'model' runs convolutions on the GPU with cuDNN's"
  torch::optim::Adam optimizer(model->parameters());
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(
        model(torch::randn({32, 3, 28, 28}, device)), targets(device));
    loss.backward();
    optimizer.step();
  }
}

void recurrent_layers(torch::Device device) {
  Tagger model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  int step = 0;
  while (step++ < 100) { // expect: torch-missing-mixed-precision
    optimizer.zero_grad();
    auto scores = model(torch::randn({20, 8, 32}, device));
    auto loss = scores.pow(2).mean();
    loss.backward();
    optimizer.step();
  }
}

void gru_in_a_sequential(torch::Device device) {
  torch::nn::Sequential model(torch::nn::Linear(32, 32), torch::nn::ReLU(),
                              torch::nn::Linear(32, 1));
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
    optimizer.zero_grad();
    auto loss = model->forward(torch::randn({64, 32}, device)).pow(2).mean();
    loss.backward();
    optimizer.step();
  }
}

void attention(torch::Device device) {
  torch::nn::MultiheadAttention attention(64, 8);
  attention->to(device);
  torch::optim::Adam optimizer(attention->parameters());
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
    optimizer.zero_grad();
    auto x = torch::randn({16, 4, 64}, device);
    auto loss = std::get<0>(attention(x, x, x)).pow(2).mean();
    loss.backward();
    optimizer.step();
  }
}

void loop_calling_a_step(Mlp &model, torch::optim::Optimizer &optimizer,
                         torch::Device device) {
  for (int step = 0; step < 100; ++step) // expect: torch-missing-mixed-precision
    train_step(model, optimizer, device);
}

void epochs_around_steps(Mlp &model, torch::optim::Optimizer &optimizer,
                         torch::Device device) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
      optimizer.zero_grad();
      auto loss = torch::cross_entropy_loss(
          model(torch::randn({32, 64}, device)), targets(device));
      loss.backward();
      optimizer.step();
    }
    std::cout << "epoch " << epoch << " done\n";
  }
}

// Gradient accumulation: the inner loop is part of the outer one's step.
void accumulated_steps(Mlp &model, torch::optim::Optimizer &optimizer,
                       torch::Device device) {
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
    optimizer.zero_grad();
    for (int micro = 0; micro < 4; ++micro) {
      auto loss = torch::cross_entropy_loss(
          model(torch::randn({32, 64}, device)), targets(device));
      (loss / 4).backward();
    }
    optimizer.step();
  }
}

// --- negatives -------------------------------------------------------------

void training_on_the_cpu() {
  Mlp model;
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64})), // expect: torch-module-never-moved
                                          torch::randint(10, {32}));
    loss.backward();
    optimizer.step();
  }
}

void inference(Mlp &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  torch::Tensor correct = torch::zeros({}, device);
  for (int batch = 0; batch < 100; ++batch)
    correct += model(torch::randn({32, 64}, device))
                   .argmax(1)
                   .eq(targets(device))
                   .sum();
  std::cout << correct << " correct\n";
}

void no_matrix_products(torch::Device device) {
  Scaler model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = model(torch::randn({32, 64}, device)).pow(2).mean();
    loss.backward();
    optimizer.step();
  }
}

// Called from another unit: where the model is is not known here.
void device_not_known(Mlp &model, torch::optim::Optimizer &optimizer,
                      torch::Tensor input, torch::Tensor target) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model(input), target);
    loss.backward();
    optimizer.step();
  }
}

void forward_only_loop(Mlp &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> predictions;
  for (int step = 0; step < 100; ++step)
    predictions.push_back(model(torch::randn({1, 64}, device)).argmax(1));
  std::cout << predictions.size() << " predictions\n";
}

int main() {
  // Neither turns anything on: TF32 off and float32 matmuls at full
  // precision are libtorch's defaults.
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setFloat32MatmulPrecision("highest");
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Mlp model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  linear_layers(model, optimizer, device);
  convolutions(device);
  recurrent_layers(device);
  gru_in_a_sequential(device);
  attention(device);
  loop_calling_a_step(model, optimizer, device);
  epochs_around_steps(model, optimizer, device);
  accumulated_steps(model, optimizer, device);
  training_on_the_cpu();
  inference(model, device);
  no_matrix_products(device);
  forward_only_loop(model, device);
  return 0;
}
