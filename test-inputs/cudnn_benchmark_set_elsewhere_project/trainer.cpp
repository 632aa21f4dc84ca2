#include "trainer.h"

#include <iostream>

void train(torch::Device device, int epochs) {
  torch::nn::Sequential net(torch::nn::Conv2d(3, 8, 3), torch::nn::ReLU(),
                            torch::nn::Flatten(),
                            torch::nn::Linear(8 * 30 * 30, 10));
  net->to(device);
  torch::optim::SGD optimizer(net->parameters(), 0.01);
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
      optimizer.zero_grad();
      auto images = torch::rand({16, 3, 32, 32}, device);
      auto loss = net->forward(images).logsumexp(1).mean();
      loss.backward();
      optimizer.step();
    }
  }
}
