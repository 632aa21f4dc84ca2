// torch-backward-under-autocast: backward(), torch::autograd::backward() or
// torch::autograd::grad() after the function turned autocast on and before
// it turned it off, with the names of libtorch up to 2.3 (deprecated
// wrappers since 2.4, so this program is analyzed against both
// generations). A backward pass after the region, in a region another
// branch or scope opened and closed, or after a restore of a saved state is
// fine.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(64, 128))),
        fc2(register_module("fc2", torch::nn::Linear(128, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    return fc2(torch::relu(fc1(x)));
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

torch::Tensor inputs(torch::Device device) {
  return torch::randn({32, 64}, device);
}
torch::Tensor targets(torch::Device device) {
  return torch::randint(10, {32}, device);
}
torch::Tensor loss_of(Net &model, torch::Device device) {
  return torch::cross_entropy_loss(model(inputs(device)), targets(device));
}

// What Python's torch.autocast does on entry and exit.
class Autocast {
public:
  Autocast() : previous_(at::autocast::is_enabled()) {
    at::autocast::set_enabled(true);
  }
  ~Autocast() {
    at::autocast::clear_cache();
    at::autocast::set_enabled(previous_);
  }
  Autocast(const Autocast &) = delete;
  Autocast &operator=(const Autocast &) = delete;

private:
  bool previous_;
};

// --- positives -------------------------------------------------------------

void backward_in_the_region(Net &model, torch::optim::Optimizer &optimizer,
                            torch::Device device) {
  optimizer.zero_grad();
  at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  loss.backward(); // expect: torch-backward-under-autocast [warning] "the backward pass runs while CUDA autocast is on, so it goes through autocast's" // expect-note: "turn autocast off once the loss is"
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  optimizer.step();
}

void training_loop(Net &model, torch::optim::Optimizer &optimizer,
                   torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling [warning] "CUDA autocast computes in float16 in this training"
    auto loss = loss_of(model, device);
    loss.backward(); // expect: torch-backward-under-autocast
    optimizer.step();
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  }
}

void autograd_backward(Net &model, torch::optim::Optimizer &optimizer,
                       torch::Device device) {
  at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  torch::autograd::backward({loss}); // expect: torch-backward-under-autocast
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  optimizer.step();
}

void autograd_grad(Net &model, torch::Device device) {
  at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  auto grads = torch::autograd::grad({loss}, model->parameters()); // expect: torch-backward-under-autocast
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  std::cout << grads.size() << " gradients\n";
}

void backward_in_a_branch(Net &model, torch::optim::Optimizer &optimizer,
                          torch::Device device, bool train) {
  at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  if (train) {
    loss.backward(); // expect: torch-backward-under-autocast
    optimizer.step();
  }
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
}

void accumulates_in_a_loop(Net &model, torch::optim::Optimizer &optimizer,
                           torch::Device device) {
  at::autocast::set_enabled(true);
  for (int micro = 0; micro < 4; ++micro) {
    auto loss = loss_of(model, device) / 4;
    loss.backward(); // expect: torch-backward-under-autocast
  }
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  optimizer.step();
}

void cpu_autocast() {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  at::autocast::set_cpu_enabled(true);
  auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64})),
                                        torch::randint(10, {32}));
  loss.backward(); // expect: torch-backward-under-autocast
  at::autocast::set_cpu_enabled(false);
  optimizer.step();
}

// A switch in a branch is seen on the paths through it.
void region_opened_on_a_condition(Net &model,
                                  torch::optim::Optimizer &optimizer,
                                  torch::Device device, bool use_amp) {
  optimizer.zero_grad();
  if (use_amp)
    at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  loss.backward(); // expect: torch-backward-under-autocast
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  optimizer.step();
}

void backward_in_an_inner_scope(Net &model, torch::optim::Optimizer &optimizer,
                                torch::Device device) {
  optimizer.zero_grad();
  at::autocast::set_enabled(true);
  {
    auto loss = loss_of(model, device);
    loss.backward(); // expect: torch-backward-under-autocast
  }
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  optimizer.step();
}

void restores_after_backward(Net &model, torch::optim::Optimizer &optimizer,
                             torch::Device device) {
  bool previous = at::autocast::is_enabled();
  at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  loss.backward(); // expect: torch-backward-under-autocast
  at::autocast::clear_cache();
  at::autocast::set_enabled(previous);
  optimizer.step();
}

// --- negatives -------------------------------------------------------------

void backward_after_the_region(Net &model, torch::optim::Optimizer &optimizer,
                               torch::Device device) {
  optimizer.zero_grad();
  at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

void loop_backward_after_the_region(Net &model,
                                    torch::optim::Optimizer &optimizer,
                                    torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
    auto loss = loss_of(model, device);
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

void grad_after_the_region(Net &model, torch::Device device) {
  at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  auto grads = torch::autograd::grad({loss}, model->parameters());
  std::cout << grads.size() << " gradients\n";
}

void restored_before_backward(Net &model, torch::optim::Optimizer &optimizer,
                              torch::Device device) {
  bool previous = at::autocast::is_enabled();
  at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  at::autocast::clear_cache();
  at::autocast::set_enabled(previous);
  loss.backward();
  optimizer.step();
}

void region_in_a_branch(Net &model, torch::optim::Optimizer &optimizer,
                        torch::Device device, bool use_amp) {
  torch::Tensor loss;
  if (use_amp) {
    at::autocast::set_enabled(true);
    loss = loss_of(model, device);
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  } else {
    loss = loss_of(model, device);
  }
  loss.backward();
  optimizer.step();
}

// Correct: opened and closed under the same flag, which the function never
// changes, before the backward pass.
void closed_under_the_same_flag(Net &model, torch::optim::Optimizer &optimizer,
                                torch::Device device, bool use_amp) {
  if (use_amp)
    at::autocast::set_enabled(true);
  torch::Tensor loss = loss_of(model, device);
  if (use_amp) {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  }
  loss.backward();
  optimizer.step();
}

void region_closed_in_both_branches(Net &model,
                                    torch::optim::Optimizer &optimizer,
                                    torch::Device device, bool validate) {
  optimizer.zero_grad();
  at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  if (validate) {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    std::cout << "validating\n";
  } else {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  }
  loss.backward();
  optimizer.step();
}

void guard_in_a_scope(Net &model, torch::optim::Optimizer &optimizer,
                      torch::Device device) {
  torch::Tensor loss;
  {
    Autocast autocast;
    loss = loss_of(model, device);
  }
  loss.backward();
  optimizer.step();
}

void turned_off_in_an_inner_block(Net &model,
                                  torch::optim::Optimizer &optimizer,
                                  torch::Device device) {
  at::autocast::set_enabled(true);
  auto loss = loss_of(model, device);
  {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
  }
  optimizer.step();
}

void cpu_region_then_backward() {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  at::autocast::set_cpu_enabled(true);
  auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64})),
                                        torch::randint(10, {32}));
  at::autocast::set_cpu_enabled(false);
  loss.backward();
  optimizer.step();
}

int main() {
  if (!torch::cuda::is_available()) {
    std::cerr << "this program needs a GPU\n";
    return 1;
  }
  torch::Device device(torch::kCUDA);
  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  backward_in_the_region(model, optimizer, device);
  training_loop(model, optimizer, device);
  autograd_backward(model, optimizer, device);
  autograd_grad(model, device);
  backward_in_a_branch(model, optimizer, device, true);
  accumulates_in_a_loop(model, optimizer, device);
  cpu_autocast();
  restores_after_backward(model, optimizer, device);
  backward_after_the_region(model, optimizer, device);
  loop_backward_after_the_region(model, optimizer, device);
  grad_after_the_region(model, device);
  restored_before_backward(model, optimizer, device);
  region_in_a_branch(model, optimizer, device, true);
  closed_under_the_same_flag(model, optimizer, device, true);
  guard_in_a_scope(model, optimizer, device);
  turned_off_in_an_inner_block(model, optimizer, device);
  cpu_region_then_backward();
  return 0;
}
