#include "agent.h"

#include <iostream>

void train_agent(torch::Device device) {
  Agent agent;
  agent->to(device);
  torch::optim::Adam optimizer(agent->parameters(), 3e-4);
  for (int update = 0; update < 100; ++update) {
    Rollout rollout = collect(agent, device, 64);
    auto value = bootstrap(agent, rollout.observations[63]);
    auto loss = learn(agent, optimizer, rollout, 4);
    log_update(update, loss, value);
    std::cout << rollout.returns.mean().item<float>() << "\n";
  }
}

void train_gan(torch::Device device) {
  torch::nn::Linear generator(4, 8), critic(8, 1);
  generator->to(device);
  critic->to(device);
  torch::optim::Adam generator_optimizer(generator->parameters(), 1e-4);
  torch::optim::Adam critic_optimizer(critic->parameters(), 1e-4);
  for (int step = 0; step < 1000; ++step) { // expect: torch-missing-mixed-precision
    for (int k = 0; k < 5; ++k) {
      critic_optimizer.zero_grad();
      auto real = torch::rand({16, 8}, device);
      auto fake = generator(torch::rand({16, 4}, device)).detach();
      auto critic_loss = critic(fake).mean() - critic(real).mean();
      critic_loss.backward();
      critic_optimizer.step();
    }
    generator_optimizer.zero_grad();
    auto generator_loss = -critic(generator(torch::rand({16, 4}, device))).mean();
    generator_loss.backward();
    generator_optimizer.step();
    std::cout << generator_loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "'generator_loss.item()' waits for the GPU on every iteration"
  }
}

void train_recurrent(torch::Device device) {
  torch::nn::GRUCell cell(8, 8);
  cell->to(device);
  torch::optim::SGD optimizer(cell->parameters(), 0.1);
  for (int batch = 0; batch < 1000; ++batch) { // expect: torch-missing-mixed-precision
    auto sequence = torch::rand({20, 4, 8}, device);
    auto hidden = torch::zeros({4, 8}, device);
    for (int t = 0; t < 20; ++t)
      hidden = cell(sequence[t], hidden);
    auto loss = hidden.pow(2).mean();
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration"
  }
}

int main() {
  torch::Device device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  train_agent(device);
  train_gan(device);
  train_recurrent(device);
}
