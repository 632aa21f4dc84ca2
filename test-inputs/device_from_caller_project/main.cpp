#include "trainer.h"

#include <cstring>

int main(int argc, char **argv) {
  bool use_gpu = argc > 1 && std::strcmp(argv[1], "--gpu") == 0 &&
                 torch::cuda::is_available();
  torch::Device device = use_gpu ? torch::Device(torch::kCUDA) // expect-note: "'device' is set to the GPU here, by a caller in another unit"
                                 : torch::Device(torch::kCPU);
  Net model;
  model->to(device); // expect-note: "'model' is put on the GPU here, by a caller in another unit"
  train(model, device, 100);
  probe(model, device);
  return evaluate(model, device) > 0 ? 0 : 1;
}
