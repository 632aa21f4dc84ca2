// A device shared through a pointer (`std::shared_ptr<torch::Device>` made
// in a constructor, a unique_ptr, a raw pointer to a local) is the device it
// points to: reads of it are one choice, so a model and a batch moved to
// `*device_` agree, and the per-step rules see the GPU behind it.
#include <torch/torch.h>

#include <iostream>
#include <memory>

struct AgentImpl : torch::nn::Module {
  AgentImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Agent);

class Trainer {
public:
  explicit Trainer(bool use_cuda) {
    device_ = std::make_shared<torch::Device>(
        torch::cuda::is_available() && use_cuda ? torch::kCUDA : torch::kCPU);
    agent_ = std::make_shared<AgentImpl>();
    agent_->to(*device_);
    optimizer_ =
        std::make_shared<torch::optim::SGD>(agent_->parameters(), 0.1);
  }

  // Correct placement: the batch goes where the model went.
  void train() {
    for (int epoch = 0; epoch < 10; ++epoch) {
      for (int step = 0; step < 4; ++step) {
        auto x = torch::rand({16, 4}).to(*device_); // expect: torch-cpu-tensor-then-moved [warning] "tensor created on the CPU by 'torch::rand' only to be copied to the GPU on every iteration"
        auto loss = agent_->forward(x).sum();
        optimizer_->zero_grad();
        loss.backward();
        torch::nn::utils::clip_grad_norm_(agent_->parameters(), 0.5); // expect: torch-sync-in-loop [warning] "when 'device_' is on a GPU"
        optimizer_->step();
        std::cout << loss.item<float>() << std::endl; // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration"
      }
    }
  }

  // Wrong: a batch made on the CPU meets the model behind the pointer.
  void evaluate() {
    torch::NoGradGuard no_grad;
    torch::Tensor x = torch::rand({16, 4});
    agent_->forward(x); // expect: torch-device-mismatch [error] "input 'x' is on the CPU"
  }

private:
  std::shared_ptr<torch::Device> device_;
  std::shared_ptr<AgentImpl> agent_;
  std::shared_ptr<torch::optim::SGD> optimizer_;
};

// A pointer to a device on the CPU points at the CPU: the model is kept
// there whatever the machine has, and nothing waits for a GPU.
void train_on_the_host() {
  torch::Device host(torch::kCPU); // expect: torch-hardcoded-cpu-device [warning] "module 'agent' is placed on a hard-coded CPU device"
  const torch::Device *device = &host;
  Agent agent;
  agent->to(*device);
  torch::optim::SGD optimizer(agent->parameters(), 0.1);
  for (int step = 0; step < 4; ++step) {
    auto loss = agent->forward(torch::rand({16, 4}).to(*device)).sum();
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    std::cout << loss.item<float>() << std::endl;
  }
}

int main() {
  Trainer trainer(true);
  trainer.train();
  trainer.evaluate();
  train_on_the_host();
}
