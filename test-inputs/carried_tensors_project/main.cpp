#include "batch.h"

#include <iostream>

int main(int argc, char **argv) {
  Trainer trainer(argc > 1);
  for (int epoch = 0; epoch < 3; ++epoch)
    for (int i = 0; i < 100; ++i) {
      Batch batch{torch::randn({32, 16}), torch::randint(0, 4, {32})};
      std::cout << trainer.host_statistics(batch) << "\n";
      trainer.step(batch);
    }
  torch::NoGradGuard no_grad;
  for (int frame = 0; frame < 100; ++frame) {
    Sample sample{torch::rand({8, 16}), torch::rand({5, 4})};
    trainer.detect(sample);
    // A copy for display, converted on the host: its values are read there.
    Sample preview{torch::rand({8, 16}), torch::rand({5, 4})};
    preview.to(torch::TensorOptions().dtype(torch::kDouble));
    std::cout << preview.boxes.sum().item<double>() << "\n";
  }
}
