// Freezing or thawing a module's parameters between epochs
// (`set_requires_grad` on what `parameters()` or `named_parameters()` give)
// sets what the next epoch records and reads no graph: a validation pass
// before it still keeps every activation for nothing while autograd
// records. A backward pass, or a `.grad()` read, after the pass does use it.
#include <torch/torch.h>

#include <iostream>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    body = register_module("body", torch::nn::Linear(8, 8));
    head = register_module("head", torch::nn::Linear(8, 2));
  }
  torch::Tensor forward(torch::Tensor x) {
    return head->forward(torch::relu(body->forward(x)));
  }
  torch::nn::Linear body{nullptr}, head{nullptr};
};
TORCH_MODULE(Net);

torch::Tensor dice_loss(const torch::Tensor &probabilities) {
  return 1 - probabilities.select(1, 0).mean();
}

void train(Net &model, int epochs) {
  auto named = model->named_parameters();
  for (int epoch = 0; epoch < epochs; ++epoch) {
    torch::optim::SGD optimizer(model->parameters(), 0.01);
    for (auto item : named)
      item.value().set_requires_grad(epoch >= 2 ||
                                     item.key().find("head") == 0);
    model->train();
    for (int step = 0; step < 10; ++step) {
      auto loss = model->forward(torch::rand({4, 8})).sum();
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
    }
    model->eval();
    float total = 0;
    for (int step = 0; step < 5; ++step) {
      torch::Tensor prediction = model->forward(torch::rand({4, 8})); // expect: torch-eval-without-no-grad [warning] "'model' runs forward in evaluation mode while autograd records"
      torch::Tensor loss = dice_loss(torch::softmax(prediction, 1));
      total += loss.item<float>();
    }
    std::cout << total << "\n";
    for (auto &parameter : model->parameters())
      parameter.requires_grad_(true);
  }
}

// Correct: the gradient of the evaluation's input is read after it.
void saliency(Net &model) {
  model->eval();
  auto input = torch::rand({1, 8}).requires_grad_(true);
  auto score = model->forward(input).max();
  score.backward();
  std::cout << input.grad().abs().sum().item<float>() << "\n";
}

int main() {
  Net model;
  train(model, 4);
  saliency(model);
}
