// A module held as a torch::nn::AnyModule (a projection, or a criterion
// chosen by configuration) is run by its forward(): its type is known only
// where it was stored, so what it returns is where its inputs are, as for
// any module of unknown device. A wait on its output in the step is a sync;
// the same code on CPU tensors is none.
#include <torch/torch.h>

#include <iostream>
#include <map>
#include <string>

struct Criteria {
  torch::nn::AnyModule train;
  std::map<std::string, torch::nn::AnyModule> validation;
};

class LossComputer {
public:
  LossComputer(torch::nn::AnyModule projector, std::shared_ptr<Criteria> criteria)
      : projector(std::move(projector)), criteria(std::move(criteria)) {}

  torch::Tensor compute(torch::Tensor features, torch::Tensor labels,
                        bool training) {
    auto logits = projector.forward(features);
    auto &criterion =
        training ? criteria->train : criteria->validation.begin()->second;
    torch::Tensor loss = criterion.forward(logits, labels);
    if (training) {
      if (torch::isfinite(loss).item<bool>()) // expect: torch-sync-in-loop [note] "'torch::isfinite(loss).item()' waits for the GPU on every iteration"
        loss.backward();
    }
    return loss;
  }

private:
  torch::nn::AnyModule projector;
  std::shared_ptr<Criteria> criteria;
};

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::nn::Linear head(16, 4);
  head->to(device);
  auto criteria = std::make_shared<Criteria>();
  criteria->train = torch::nn::AnyModule(torch::nn::CrossEntropyLoss());
  criteria->validation["ce"] = torch::nn::AnyModule(torch::nn::CrossEntropyLoss());
  LossComputer losses(torch::nn::AnyModule(head), criteria);
  torch::optim::SGD optimizer(head->parameters(), 0.1);
  float total = 0;
  for (int step = 0; step < 100; ++step) {
    auto x = torch::randn({8, 16}, device);
    auto y = torch::randint(0, 4, {8}, torch::TensorOptions().device(device).dtype(torch::kLong));
    optimizer.zero_grad();
    auto loss = losses.compute(x, y, /*training=*/true);
    optimizer.step();
    total += loss.item<float>(); // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration"
  }
  std::cout << total << "\n";

  // On the host: the same module, its inputs made on the CPU; no wait.
  torch::nn::AnyModule scorer(torch::nn::Linear(16, 1));
  for (int i = 0; i < 10; ++i) {
    auto score = scorer.forward(torch::randn({1, 16}));
    std::cout << score.item<float>() << "\n";
  }
}
