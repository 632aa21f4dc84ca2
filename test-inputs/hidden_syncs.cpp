// torch-sync-in-loop, the syncs no .item() spells: an operation whose result's
// size depends on the values (nonzero, masked_select, unique, where with one
// argument), one that answers on the host (equal, allclose), and
// clip_grad_norm_, which returns the total norm as a host double. In an
// inference step the first such read of the model's result is the step's
// work, as the first copy to the host is; on the host they wait for nothing.
#include <torch/torch.h>

#include <iostream>
#include <vector>

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}

void train(torch::nn::Linear &model, torch::Device device) {
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto warm = torch::rand({8, 16}, device);
  // Once, before the loop.
  std::cout << warm.nonzero().size(0) << "\n";
  for (int step = 0; step < 1000; ++step) { // expect: torch-missing-mixed-precision
    auto data = torch::rand({64, 16}, device);
    auto labels = torch::randint(4, {64}, device);
    optimizer.zero_grad();
    auto output = model(data);
    auto picked = output.masked_select(output > 0); // expect: torch-sync-in-loop [warning] "'output.masked_select()' waits for the GPU on every iteration"
    auto rows = torch::nonzero(labels == 3); // expect: torch-sync-in-loop [warning] "'nonzero(labels == 3)' waits for the GPU"
    auto kinds = std::get<0>(torch::unique_consecutive(labels)); // expect: torch-sync-in-loop [warning] "'unique_consecutive(labels)' waits"
    auto clipped = torch::where(output > 1, torch::ones_like(output), output);
    auto loss = torch::cross_entropy_loss(clipped, labels);
    loss.backward();
    torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0); // expect: torch-sync-in-loop [warning] "'clip_grad_norm_(model->parameters())' waits"
    optimizer.step();
    if (torch::equal(labels, labels.flip(0))) // expect: torch-sync-in-loop [note] "'equal(labels)' waits for the GPU"
      std::cout << "a palindrome of labels\n";
    std::cout << picked.numel() + rows.size(0) + kinds.size(0) << "\n";
  }
}

// Suppression one box at a time: each round waits for nonzero() to learn
// which boxes are left. The loop ends when none is, but that test is not
// why it waits: a batched suppression waits once per frame, not per box.
torch::Tensor suppress(const torch::Tensor &scores) {
  auto order = std::get<1>(scores.sort(0, true));
  std::vector<torch::Tensor> kept;
  while (order.numel() > 0) {
    kept.push_back(order[0]);
    auto overlap = scores.index({order}) - scores.index({order[0]});
    auto left = (overlap.abs() > 0.1).nonzero().squeeze(1); // expect: torch-sync-in-loop [warning] "'(overlap.abs() > 0.1).nonzero()' waits"
    if (left.numel() == 0)
      break;
    order = order.index({left});
  }
  return torch::stack(kept);
}

std::vector<int64_t> detect(torch::nn::Linear &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  model->to(device);
  model->eval();
  std::vector<int64_t> counts;
  for (int frame = 0; frame < 1000; ++frame) {
    auto scores = model(torch::rand({256, 16}, device));
    // The frame's detections: reading them is the step's work.
    auto kept = (scores > 0.5).nonzero();
    auto strong = (scores > 0.9).nonzero(); // expect: torch-sync-in-loop [warning] "'(scores > 0.9).nonzero()' waits"
    counts.push_back(kept.size(0) + strong.size(0));
    counts.push_back(suppress(scores.select(1, 0)).size(0));
  }
  return counts;
}

// On the host: nothing to wait for.
int64_t count_host(const std::vector<torch::Tensor> &batches) {
  int64_t total = 0;
  for (const auto &batch : batches)
    total += batch.nonzero().size(0) + std::get<0>(torch::unique_consecutive(batch)).size(0);
  return total;
}

int main() {
  torch::nn::Linear model(16, 4);
  train(model, pick_device());
  auto counts = detect(model, pick_device());
  std::vector<torch::Tensor> batches(4, torch::rand({8, 8}));
  std::cout << counts.size() << count_host(batches) << "\n";
}
