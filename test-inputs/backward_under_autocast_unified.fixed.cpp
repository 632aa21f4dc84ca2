// torchlint-test: libtorch>=2 twin-of backward_under_autocast
// torch-backward-under-autocast with the names of libtorch 2.4 and later,
// which take the device type: set_autocast_enabled(at::kCUDA, true) opens a
// CUDA region, set_autocast_enabled(at::kCPU, true) a CPU one. The cases are
// those of backward_under_autocast.cpp, and a region for the device chosen at
// run time (set_autocast_enabled(device.type(), true)), which turns autocast
// on for whichever device the program computes on: a backward pass in it, or
// in a helper it calls, runs under autocast; one after its switch-off does
// not.
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
  Autocast() : previous_(at::autocast::is_autocast_enabled(at::kCUDA)) {
    at::autocast::set_autocast_enabled(at::kCUDA, true);
  }
  ~Autocast() {
    at::autocast::clear_cache();
    at::autocast::set_autocast_enabled(at::kCUDA, previous_);
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
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto loss = loss_of(model, device);
  loss.backward(); // expect: torch-backward-under-autocast
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  optimizer.step();
}

void training_loop(Net &model, torch::optim::Optimizer &optimizer,
                   torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
    at::autocast::set_autocast_enabled(at::kCUDA, true); // expect: torch-fp16-without-loss-scaling
    auto loss = loss_of(model, device);
    loss.backward(); // expect: torch-backward-under-autocast
    optimizer.step();
    at::autocast::set_autocast_enabled(at::kCUDA, false);
    at::autocast::clear_cache();
  }
}

void autograd_backward(Net &model, torch::optim::Optimizer &optimizer,
                       torch::Device device) {
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto loss = loss_of(model, device);
  torch::autograd::backward({loss}); // expect: torch-backward-under-autocast
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  optimizer.step();
}

void autograd_grad(Net &model, torch::Device device) {
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto loss = loss_of(model, device);
  auto grads = torch::autograd::grad({loss}, model->parameters()); // expect: torch-backward-under-autocast
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  std::cout << grads.size() << " gradients\n";
}

void backward_in_a_branch(Net &model, torch::optim::Optimizer &optimizer,
                          torch::Device device, bool train) {
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto loss = loss_of(model, device);
  if (train) {
    loss.backward(); // expect: torch-backward-under-autocast
    optimizer.step();
  }
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
}

void accumulates_in_a_loop(Net &model, torch::optim::Optimizer &optimizer,
                           torch::Device device) {
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  for (int micro = 0; micro < 4; ++micro) {
    auto loss = loss_of(model, device) / 4;
    loss.backward(); // expect: torch-backward-under-autocast
  }
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  optimizer.step();
}

void cpu_autocast() {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  at::autocast::set_autocast_enabled(at::kCPU, true);
  auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64})),
                                        torch::randint(10, {32}));
  loss.backward(); // expect: torch-backward-under-autocast
  at::autocast::set_autocast_enabled(at::kCPU, false);
  optimizer.step();
}

void restores_after_backward(Net &model, torch::optim::Optimizer &optimizer,
                             torch::Device device) {
  bool previous = at::autocast::is_autocast_enabled(at::kCUDA);
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto loss = loss_of(model, device);
  loss.backward(); // expect: torch-backward-under-autocast
  at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(at::kCUDA, previous);
  optimizer.step();
}

void device_chosen_at_run_time(Net &model, torch::optim::Optimizer &optimizer,
                               torch::Device device) {
  at::autocast::set_autocast_enabled(device.type(), true); // expect-note: "autocast is turned on here"
  auto loss = loss_of(model, device);
  loss.backward(); // expect: torch-backward-under-autocast [warning] "the backward pass runs while autocast for the device chosen at run time is on"
  at::autocast::set_autocast_enabled(device.type(), false);
  at::autocast::clear_cache();
  optimizer.step();
}

void backward_of(const torch::Tensor &loss) {
  loss.backward(); // expect: torch-backward-under-autocast [warning] "the backward pass runs while autocast is on in a caller"
}

void helper_in_a_run_time_region(Net &model,
                                 torch::optim::Optimizer &optimizer,
                                 torch::Device device) {
  at::autocast::set_autocast_enabled(device.type(), true); // expect-note: "autocast is turned on here, before the call"
  backward_of(loss_of(model, device));
  at::autocast::set_autocast_enabled(device.type(), false);
  at::autocast::clear_cache();
  optimizer.step();
}

// --- negatives -------------------------------------------------------------

void run_time_region_closed_first(Net &model,
                                  torch::optim::Optimizer &optimizer,
                                  torch::Device device) {
  at::autocast::set_autocast_enabled(device.type(), true);
  auto loss = loss_of(model, device);
  at::autocast::set_autocast_enabled(device.type(), false);
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

void backward_after_the_region(Net &model, torch::optim::Optimizer &optimizer,
                               torch::Device device) {
  optimizer.zero_grad();
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto loss = loss_of(model, device);
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

void loop_backward_after_the_region(Net &model,
                                    torch::optim::Optimizer &optimizer,
                                    torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
    at::autocast::set_autocast_enabled(at::kCUDA, true); // expect: torch-fp16-without-loss-scaling
    auto loss = loss_of(model, device);
    at::autocast::set_autocast_enabled(at::kCUDA, false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

void grad_after_the_region(Net &model, torch::Device device) {
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto loss = loss_of(model, device);
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  at::autocast::clear_cache();
  auto grads = torch::autograd::grad({loss}, model->parameters());
  std::cout << grads.size() << " gradients\n";
}

void restored_before_backward(Net &model, torch::optim::Optimizer &optimizer,
                              torch::Device device) {
  bool previous = at::autocast::is_autocast_enabled(at::kCUDA);
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto loss = loss_of(model, device);
  at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(at::kCUDA, previous);
  loss.backward();
  optimizer.step();
}

void region_in_a_branch(Net &model, torch::optim::Optimizer &optimizer,
                        torch::Device device, bool use_amp) {
  torch::Tensor loss;
  if (use_amp) {
    at::autocast::set_autocast_enabled(at::kCUDA, true);
    loss = loss_of(model, device);
    at::autocast::set_autocast_enabled(at::kCUDA, false);
    at::autocast::clear_cache();
  } else {
    loss = loss_of(model, device);
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
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto loss = loss_of(model, device);
  {
    at::autocast::set_autocast_enabled(at::kCUDA, false);
    at::autocast::clear_cache();
    loss.backward();
  }
  optimizer.step();
}

void cpu_region_then_backward() {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  at::autocast::set_autocast_enabled(at::kCPU, true);
  auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64})),
                                        torch::randint(10, {32}));
  at::autocast::set_autocast_enabled(at::kCPU, false);
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
  guard_in_a_scope(model, optimizer, device);
  turned_off_in_an_inner_block(model, optimizer, device);
  cpu_region_then_backward();
  device_chosen_at_run_time(model, optimizer, device);
  helper_in_a_run_time_region(model, optimizer, device);
  run_time_region_closed_first(model, optimizer, device);
  return 0;
}
