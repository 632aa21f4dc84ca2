// Tensors carried in standard maps: a training loop keeps its losses in a
// std::map keyed by name and hands the map to a logger defined in another
// unit, which reads every entry back to the host on each step, through an
// iterator, a structured binding or at(). An element written into a map is
// one of its values: the map is where its losses are, on the GPU here. A
// map of host tensors, and a map read once after training, wait for
// nothing worth a finding.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>

struct Meters {
  void update(std::map<std::string, torch::Tensor> losses);
  void update_named(const std::map<std::string, torch::Tensor> &losses);
  float total(const std::map<std::string, torch::Tensor> &losses);
  std::map<std::string, float> sums;
};

void train(torch::nn::Linear &model, torch::Device device);
