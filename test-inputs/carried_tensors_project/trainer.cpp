#include "batch.h"

#include <iostream>

Trainer::Trainer(bool use_gpu)
    : device_(use_gpu && torch::cuda::is_available()
                  ? torch::Device(torch::kCUDA)
                  : torch::Device(torch::kCPU)) {
  model_->to(device_);
  optimizer_ = std::make_unique<torch::optim::SGD>(model_->parameters(), 0.1);
}

torch::Tensor Trainer::step(Batch &batch) {
  batch = batch.to(device_);
  auto tokens = (batch.inputs != 0).sum().item<int64_t>(); // expect: torch-sync-in-loop [warning] "'(batch.inputs != 0).sum().item()' waits for the GPU on every iteration"
  Pack inputs{{"x", batch.inputs}};
  Pack outputs = model_->forward(inputs);
  auto logits = std::any_cast<torch::Tensor>(outputs["logits"]);
  auto loss = torch::cross_entropy_loss(logits, batch.targets) / tokens;
  optimizer_->zero_grad();
  loss.backward();
  torch::nn::utils::clip_grad_norm_(model_->parameters(), 1.0); // expect: torch-sync-in-loop [warning] "'clip_grad_norm_(model_->parameters())' waits for the GPU"
  optimizer_->step();
  std::cout << loss.item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration"
  return loss.detach();
}

void Trainer::detect(Sample &sample) {
  torch::NoGradGuard no_grad;
  sample.to(torch::TensorOptions().device(device_));
  Pack inputs{{"x", sample.image}};
  Pack outputs = model_->forward(inputs);
  auto scores = std::any_cast<torch::Tensor>(outputs["logits"]);
  // The frame's result, post-processed on the device, reaches the host once:
  // that copy is the work of the step.
  auto bias = torch::ones({4}, torch::TensorOptions().device(device_));
  torch::Tensor centred = (scores - bias).cpu();
  for (int64_t i = 0; i < scores.size(0); ++i)
    std::cout << scores[i][0].item<float>() << "\n"; // expect: torch-sync-in-loop [warning] "'scores[i][0].item()' waits for the GPU" // expect-note: "this waits once per element"
}

// The batch as the loader made it, before step() moves it: on the host.
double Trainer::host_statistics(const Batch &batch) {
  return batch.inputs.mean().item<double>();
}
