#include "detector.h"

#include <iostream>

void evaluate(Detector &model, torch::Device device);

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Detector model;
  model->to(device);
  torch::optim::Adam optimizer(model->parameters(), 1e-3);
  auto loader = torch::data::make_data_loader( // expect: torch-dataloader-no-workers
      Frames().map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(64).workers(4));
  for (int epoch = 0; epoch < 10; ++epoch) {
    model->train();
    for (auto &batch : *loader) {
      auto frames = to_device(batch.data, device); // expect-note: "called on every iteration of a loop here"
      auto labels = to_device(batch.target, device);
      frames = frames + 0.01 * noise_like(frames, device); // expect-note: "called on every iteration of a loop here"
      float loss = train_step(model, optimizer, frames, labels);
      std::cout << "loss " << loss << "\n";
    }
    evaluate(model, device);
  }
}
