#include "meters.h"

#include <iostream>

void train(torch::nn::Linear &model, torch::Device device) {
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  Meters meters;
  std::map<std::string, torch::Tensor> losses;
  std::map<std::string, torch::Tensor> on_host;
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
    auto output = model(torch::randn({32, 64}, device));
    auto target = torch::randint(10, {32}, device);
    auto loss = torch::cross_entropy_loss(output, target);
    losses["loss"] = loss;
    losses.emplace("norm", output.norm());
    meters.update(losses);
    meters.update_named(losses);
    on_host["steps"] = torch::full({1}, step);
    std::cout << on_host.at("steps").item<float>() << "\n";
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
  std::map<std::string, torch::Tensor> last;
  last["loss"] = losses.at("loss").cpu();
  std::cout << meters.total(last) << "\n";
}
