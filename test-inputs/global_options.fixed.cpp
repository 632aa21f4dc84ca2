// A device kept in a global options object, CPU by default and set to the
// GPU in main when one is available: the functions that read it run on the
// GPU on those runs, so the opportunity rules report there, saying so, with
// a note where it is set. A function that main calls with a model it moved
// after choosing sees the choice itself: its model is on the GPU, and an
// input left on the CPU there is an error.
#include <torch/torch.h>

#include <iostream>

struct Options {
  int64_t steps = 100;
  torch::DeviceType device = torch::kCPU;
};

static Options options;

// Never changed: the CPU, so nothing waits for a GPU, and the device is
// hard-coded.
struct Settings {
  torch::DeviceType device = torch::kCPU; // expect: torch-hardcoded-cpu-device [warning] "is placed on a hard-coded CPU device, so it runs on the CPU even on a machine with a GPU"
};
static Settings settings;

void train(torch::nn::Linear &model) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(options.device));
  for (int64_t step = 0; step < options.steps; ++step) { // expect: torch-missing-mixed-precision
    auto loss = model(x).pow(2).mean();
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration, so"
  }
}

// main moves the model to the chosen device before it calls this: with a GPU
// the model is on it and the input is not.
torch::Tensor probe(torch::nn::Linear &model) {
  torch::NoGradGuard no_grad;
  return model(torch::zeros({1, 16}).to(options.device)); // expect: torch-device-mismatch [error] "input 'torch::zeros({1, 16})' is on the CPU but module 'model' is on the GPU"
}

// A head made and moved here: on the GPU on the runs where main chose one.
// Which value this function sees depends on when it runs, so the CPU default
// is not reported as hard-coded.
void finetune() {
  torch::nn::Linear head(16, 4);
  head->to(options.device);
  torch::optim::SGD optimizer(head->parameters(), 0.01);
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(options.device));
  for (int64_t step = 0; step < options.steps; ++step) {
    auto loss = head(x).pow(2).mean();
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "waits for the GPU on every iteration (when 'device' is a GPU), so"
  }
}

void train_on_settings(torch::nn::Linear &model) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(settings.device));
  for (int64_t step = 0; step < 100; ++step) {
    auto loss = model(x).pow(2).mean();
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    std::cout << loss.item<float>() << "\n";
  }
}

int main() {
  if (torch::cuda::is_available())
    options.device = torch::kCUDA; // expect-note: "'device' is set to the GPU here, at run time"
  torch::nn::Linear model(16, 4);
  model->to(options.device);
  train(model);
  std::cout << probe(model) << "\n";
  finetune();
  torch::nn::Linear small(16, 4);
  small->to(settings.device);
  train_on_settings(small);
}
