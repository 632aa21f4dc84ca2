#include "train.h"

#include <iostream>

int main() {
  if (torch::cuda::is_available())
    std::cout << "CUDA is available: training will be fast\n";
  train(10);
}
