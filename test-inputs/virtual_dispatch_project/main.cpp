#include "sampler.h"

#include <iostream>
#include <string>

int main(int argc, char **argv) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  std::shared_ptr<SamplerImpl> sampler;
  if (argc > 1 && std::string(argv[1]) == "flow")
    sampler = std::make_shared<FlowImpl>();
  else
    sampler = std::make_shared<DiffusionImpl>();
  sampler->to(device);
  train(sampler, device);
  std::cout << score_on_host(std::make_shared<FlowImpl>()) << "\n";
}
