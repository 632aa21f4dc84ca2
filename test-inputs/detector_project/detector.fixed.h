// A project of two units and the header they share, as real projects are:
// the model and its training step in one unit, the loop that drives them in
// another. Findings in the header are annotated here, and reported once
// though both units compile it.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

struct DetectorImpl : torch::nn::Module {
  DetectorImpl()
      : backbone(register_module("backbone", torch::nn::Linear(256, 64))),
        head(register_module("head", torch::nn::Linear(64, 4))) {}
  torch::Tensor forward(torch::Tensor x) {
    return head(torch::relu(backbone(x)));
  }
  torch::nn::Linear backbone{nullptr}, head{nullptr};
};
TORCH_MODULE(Detector);

struct Frames : torch::data::datasets::Dataset<Frames> {
  torch::data::Example<> get(size_t index) override {
    return {torch::rand({256}), torch::tensor(static_cast<int64_t>(index % 4))};
  }
  torch::optional<size_t> size() const override { return 4096; }
};

/// One optimisation step, defined in train.cpp.
float train_step(Detector &model, torch::optim::Optimizer &optimizer,
                 const torch::Tensor &frames, const torch::Tensor &labels);

// Inline: both units compile them.
inline torch::Tensor to_device(const torch::Tensor &batch,
                               torch::Device device) {
  return batch.to(device); // expect: torch-pageable-copy [warning] "'batch' is copied to the GPU from pageable host memory on every iteration, so the host waits for" // expect-note: "data loader batches are always pageable (DataLoaderOptions"
}

inline torch::Tensor noise_like(const torch::Tensor &frames,
                                torch::Device device) {
  return torch::randn(frames.sizes(), torch::TensorOptions().device(device)); // expect: torch-cpu-tensor-then-moved [warning] "tensor created on the CPU by 'torch::randn'"
}
