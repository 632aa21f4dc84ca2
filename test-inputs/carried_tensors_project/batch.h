// Tensors carried in the program's own objects, across units: a batch class
// with a to() of its own (defined in another unit), a sample moved in place
// by a to() that takes options, a map of std::any that a module fills and
// the trainer unpacks with std::any_cast. Where such an object's tensors
// are is where its to() put them, or where the tensors it was built from
// are. The trainer's device is a member chosen in its constructor; methods
// that hand it to to() read it, they do not change it. clip_grad_norm_
// reads the parameters where the module is, also when that is chosen at
// run time.
#pragma once

#include <torch/torch.h>

#include <any>
#include <map>
#include <memory>
#include <string>

struct Batch {
  torch::Tensor inputs;
  torch::Tensor targets;
  Batch to(const torch::Device &device) const;
};

struct Sample {
  torch::Tensor image;
  torch::Tensor boxes;
  void to(const torch::TensorOptions &options);
};

class Pack : public std::map<std::string, std::any> {
public:
  using std::map<std::string, std::any>::map;
};

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(16, 4))) {}
  Pack forward(Pack &inputs) {
    Pack outputs;
    outputs["logits"] = fc(std::any_cast<torch::Tensor>(inputs["x"]));
    return outputs;
  }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

class Trainer {
public:
  explicit Trainer(bool use_gpu);
  torch::Tensor step(Batch &batch);
  void detect(Sample &sample);
  double host_statistics(const Batch &batch);

private:
  torch::Device device_ = torch::kCPU;
  Net model_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
};
