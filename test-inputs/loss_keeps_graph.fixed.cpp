// torch-loss-keeps-graph: a tensor declared before a training loop that
// collects the loss on every iteration with its autograd graph: each
// iteration's graph then lives as long as the accumulator, and memory grows
// with the epoch. Reported at the accumulation, with notes at the
// accumulator and at the backward(). Not reported when what is collected is
// detached or read as a number, when the accumulator is itself
// backpropagated or returned (accumulation on purpose), inside a no-grad
// region, or for an accumulator that lives only one iteration.
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct Net : torch::nn::Module {
  Net() { fc = register_module("fc", torch::nn::Linear(4, 1)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};

void sumsTheLoss(Net &net, torch::optim::SGD &optimizer,
                 const torch::Tensor &x, const torch::Tensor &y) {
  torch::Tensor total_loss = torch::zeros({}); // expect-note: "'total_loss' is declared here, outside the loop"
  for (int i = 0; i < 100; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net.forward(x), y);
    loss.backward(); // expect-note: "'loss' is backpropagated here"
    optimizer.step();
    total_loss += loss.detach(); // expect: torch-loss-keeps-graph [warning] "'total_loss' collects 'loss' with its autograd graph, so every iteration's graph stays alive as long as 'total_loss' and memory grows with each step"
  }
  std::cout << total_loss.item<float>() / 100 << '\n';
}

void addsTheLossToItself(Net &net, torch::optim::SGD &optimizer,
                         const torch::Tensor &x, const torch::Tensor &y) {
  auto running = torch::zeros({1});
  for (int epoch = 0; epoch < 10; ++epoch) {
    optimizer.zero_grad();
    auto loss = torch::mse_loss(net.forward(x), y);
    loss.backward();
    optimizer.step();
    running = running + loss.detach(); // expect: torch-loss-keeps-graph
  }
  std::cout << running << '\n';
}

void addsInPlace(Net &net, torch::optim::SGD &optimizer,
                 const torch::Tensor &x, const torch::Tensor &y) {
  torch::Tensor sum = torch::zeros({});
  int step = 0;
  while (step++ < 50) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net.forward(x), y);
    loss.backward();
    optimizer.step();
    sum.add_(loss.detach()); // expect: torch-loss-keeps-graph
  }
  std::cout << sum << '\n';
}

void keepsEveryLoss(Net &net, torch::optim::SGD &optimizer,
                    const std::vector<torch::Tensor> &batches,
                    const torch::Tensor &y) {
  std::vector<torch::Tensor> losses;
  for (const torch::Tensor &batch : batches) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net.forward(batch), y);
    loss.backward();
    optimizer.step();
    losses.push_back(loss.detach()); // expect: torch-loss-keeps-graph
  }
  std::cout << torch::stack(losses).mean() << '\n';
}

void emplacesEveryLoss(Net &net, torch::optim::SGD &optimizer,
                       const torch::Tensor &x, const torch::Tensor &y) {
  std::vector<torch::Tensor> history;
  for (int i = 0; i < 20; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net.forward(x), y);
    loss.backward();
    optimizer.step();
    history.emplace_back(loss.detach()); // expect: torch-loss-keeps-graph
  }
  std::cout << history.size() << '\n';
}

void scaledLoss(Net &net, torch::optim::SGD &optimizer, const torch::Tensor &x,
                const torch::Tensor &y, int batches) {
  torch::Tensor epoch_loss = torch::zeros({});
  for (int b = 0; b < batches; ++b) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net.forward(x), y);
    loss.backward();
    optimizer.step();
    epoch_loss += (loss * x.size(0)).detach(); // expect: torch-loss-keeps-graph
  }
  std::cout << epoch_loss / batches << '\n';
}

void inNestedLoops(Net &net, torch::optim::SGD &optimizer,
                   const torch::Tensor &x, const torch::Tensor &y) {
  torch::Tensor total = torch::zeros({});
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (int b = 0; b < 10; ++b) {
      optimizer.zero_grad();
      torch::Tensor loss = torch::mse_loss(net.forward(x), y);
      loss.backward();
      optimizer.step();
      total += loss.detach(); // expect: torch-loss-keeps-graph
    }
  }
  std::cout << total << '\n';
}

void twoLosses(Net &net, torch::optim::SGD &optimizer, const torch::Tensor &x,
               const torch::Tensor &y) {
  torch::Tensor reconstruction = torch::zeros({});
  torch::Tensor regularisation = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    optimizer.zero_grad();
    torch::Tensor fit = torch::mse_loss(net.forward(x), y);
    torch::Tensor penalty = net.fc->weight.pow(2).sum();
    torch::Tensor loss = fit + penalty;
    loss.backward();
    optimizer.step();
    reconstruction += loss.detach(); // expect: torch-loss-keeps-graph
    regularisation = regularisation + loss.detach(); // expect: torch-loss-keeps-graph
  }
  std::cout << reconstruction << regularisation << '\n';
}

void functionalBackward(Net &net, torch::optim::SGD &optimizer,
                        const torch::Tensor &x, const torch::Tensor &y) {
  torch::Tensor seen = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net.forward(x), y);
    torch::autograd::backward({loss});
    optimizer.step();
    seen += loss.detach(); // expect: torch-loss-keeps-graph
  }
  std::cout << seen << '\n';
}

// Detached, read as a number, or accumulated on purpose.
void collectsWithoutGraphs(Net &net, torch::optim::SGD &optimizer,
                           const torch::Tensor &x, const torch::Tensor &y) {
  torch::Tensor detached = torch::zeros({});
  double number = 0;
  std::vector<torch::Tensor> items;
  std::vector<float> floats;
  torch::Tensor data = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net.forward(x), y);
    loss.backward();
    optimizer.step();
    detached += loss.detach();
    number += loss.item<double>();
    items.push_back(loss.detach().cpu());
    floats.push_back(loss.item<float>());
    data.add_(loss.data());
  }
  std::cout << detached << number << items.size() << floats.size() << data
            << '\n';
}

// Gradient accumulation: the sum is what is backpropagated.
void accumulatesOnPurpose(Net &net, torch::optim::SGD &optimizer,
                          const torch::Tensor &x, const torch::Tensor &y) {
  optimizer.zero_grad();
  torch::Tensor accumulated = torch::zeros({});
  for (int micro = 0; micro < 4; ++micro) {
    torch::Tensor loss = torch::mse_loss(net.forward(x), y);
    accumulated = accumulated + loss / 4;
  }
  accumulated.backward();
  optimizer.step();
}

torch::Tensor returnsTheSum(Net &net, const torch::Tensor &x,
                            const torch::Tensor &y) {
  torch::Tensor sum = torch::zeros({});
  for (int i = 0; i < 4; ++i) {
    torch::Tensor loss = torch::mse_loss(net.forward(x), y);
    loss.backward();
    sum += loss;
  }
  return sum;
}

// No graph to keep, or nothing that outlives the iteration.
void withoutGraphs(Net &net, torch::optim::SGD &optimizer,
                   const torch::Tensor &x, const torch::Tensor &y) {
  {
    torch::NoGradGuard no_grad;
    torch::Tensor validation = torch::zeros({});
    for (int i = 0; i < 10; ++i)
      validation += torch::mse_loss(net.forward(x), y);
    std::cout << validation << '\n';
  }
  for (int i = 0; i < 10; ++i) {
    torch::Tensor per_step = torch::zeros({});
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net.forward(x), y);
    loss.backward();
    optimizer.step();
    per_step += loss;
    std::cout << per_step.item<float>() << '\n';
  }
  torch::Tensor counts = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net.forward(x), y);
    loss.backward();
    optimizer.step();
    counts += torch::ones({});
  }
  std::cout << counts << '\n';
}

int main() {
  Net net;
  torch::optim::SGD optimizer(net.parameters(), 0.01);
  torch::Tensor x = torch::randn({8, 4}), y = torch::randn({8, 1});
  sumsTheLoss(net, optimizer, x, y);
  addsTheLossToItself(net, optimizer, x, y);
  addsInPlace(net, optimizer, x, y);
  keepsEveryLoss(net, optimizer, {x, x}, y);
  emplacesEveryLoss(net, optimizer, x, y);
  scaledLoss(net, optimizer, x, y, 4);
  inNestedLoops(net, optimizer, x, y);
  twoLosses(net, optimizer, x, y);
  functionalBackward(net, optimizer, x, y);
  collectsWithoutGraphs(net, optimizer, x, y);
  accumulatesOnPurpose(net, optimizer, x, y);
  std::cout << returnsTheSum(net, x, y).item<float>() << '\n';
  withoutGraphs(net, optimizer, x, y);
}
