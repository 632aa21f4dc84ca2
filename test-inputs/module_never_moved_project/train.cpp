#include "train.h"

#include <iostream>

torch::Tensor batch_of(int step) { return torch::rand({64, 16}) * step; }

void train(int epochs) {
  torch::nn::Sequential model(torch::nn::Linear(16, 32), torch::nn::ReLU(), // expect-note: "'model' is created on the CPU here"
                              torch::nn::Linear(32, 1));
  torch::optim::Adam optimizer(model->parameters(), 1e-3);
  for (int epoch = 0; epoch < epochs; ++epoch)
    for (int step = 0; step < 100; ++step) {
      optimizer.zero_grad();
      auto loss = model->forward(batch_of(step)).pow(2).mean(); // expect: torch-module-never-moved [warning] "module 'model' is never moved to the GPU, so it runs on the CPU on every iteration although the program uses CUDA"
      loss.backward();
      optimizer.step();
    }
}
