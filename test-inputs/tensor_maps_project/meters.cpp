#include "meters.h"

void Meters::update(std::map<std::string, torch::Tensor> losses) {
  for (auto it = losses.begin(); it != losses.end(); ++it)
    sums[it->first] += it->second.item<float>(); // expect: torch-sync-in-loop [warning] "'it->second.item()' waits for the GPU on every iteration"
}

void Meters::update_named(const std::map<std::string, torch::Tensor> &losses) {
  for (const auto &[name, value] : losses)
    sums[name] += value.item<float>(); // expect: torch-sync-in-loop [warning] "'value.item()' waits for the GPU"
}

// Called once, after training, on host tensors.
float Meters::total(const std::map<std::string, torch::Tensor> &losses) {
  float sum = 0;
  for (const auto &entry : losses)
    sum += entry.second.item<float>();
  return sum;
}
