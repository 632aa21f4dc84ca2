#include "loader.h"

#include <iostream>

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::nn::Sequential model(torch::nn::Flatten(),
                              torch::nn::Linear(3 * 8 * 8, 10));
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  FolderLoader loader(16);
  Batch batch;
  torch::Tensor staged;
  stage(staged, 16);
  for (int epoch = 0; epoch < 2; ++epoch) {
    while (loader.next(batch)) { // expect: torch-missing-mixed-precision [note]
      auto images = std::get<0>(batch).to(device); // expect: torch-pageable-copy [warning] "'std::get<0>(batch)' is copied to the GPU from pageable host memory on every iteration"
      auto labels = std::get<1>(batch).to(device); // expect: torch-pageable-copy [warning]
      // Correct: the staging buffer is page-locked, the copy asynchronous.
      staged.copy_(std::get<0>(batch));
      auto prefetched = staged.to(device, /*non_blocking=*/true);
      auto loss = torch::nn::functional::cross_entropy(model->forward(images),
                                                       labels);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      std::cout << prefetched.size(0) << "\n";
    }
  }
}
