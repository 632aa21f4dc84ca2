// torch-autocast-stale-cache: a CUDA autocast region ends without
// at::autocast::clear_cache(), with the names of libtorch up to 2.3
// (deprecated wrappers since 2.4, so this program is analyzed against both
// generations). Regions that clear the cache where they end (after the
// switch-off on every path, or right before it with nothing run in between),
// resets before any region, CPU autocast and functions that turned caching
// off are fine.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <iostream>

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

// --- positives -------------------------------------------------------------

void one_step(Net &model, torch::optim::Optimizer &optimizer,
              torch::Device device) {
  optimizer.zero_grad();
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::set_enabled(false); // expect: torch-autocast-stale-cache [error] "CUDA autocast is turned off without 'at::autocast::clear_cache()', so the next region computes" // expect-note: "clear the cache where the region ends"
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

void training_loop(Net &model, torch::optim::Optimizer &optimizer,
                   torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling [warning] "CUDA autocast computes in float16 in this training loop and the loss is not scaled before backward(), so gradients below float16's smallest" // expect-note: "compute in bfloat16, whose range is that"
    auto output = model->forward(inputs(device));
    auto loss = torch::cross_entropy_loss(output, targets(device));
    at::autocast::set_enabled(false); // expect: torch-autocast-stale-cache
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

void restores_the_saved_state(Net &model, torch::optim::Optimizer &optimizer,
                              torch::Device device) {
  bool previous = at::autocast::is_enabled();
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::set_enabled(previous); // expect: torch-autocast-stale-cache
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

// A guard that restores the state but forgets the cache.
class ForgetfulAutocast {
public:
  ForgetfulAutocast() : previous_(at::autocast::is_enabled()) {
    at::autocast::set_enabled(true);
  }
  ~ForgetfulAutocast() {
    at::autocast::set_enabled(previous_); // expect: torch-autocast-stale-cache
    at::autocast::clear_cache();
  }

private:
  bool previous_;
};

torch::Tensor guarded_loss(Net &model, torch::Device device) {
  ForgetfulAutocast autocast;
  return torch::cross_entropy_loss(model(inputs(device)), targets(device));
}

// The region ends in a helper of its own.
void end_mixed_precision() {
  at::autocast::set_enabled(false); // expect: torch-autocast-stale-cache
  at::autocast::clear_cache();
}

void nested_like_python(Net &model, torch::optim::Optimizer &optimizer,
                        torch::Device device) {
  at::autocast::increment_nesting();
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::decrement_nesting();
  at::autocast::set_enabled(false); // expect: torch-autocast-stale-cache
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

void ends_on_a_condition(Net &model, torch::Device device, bool last) {
  torch::NoGradGuard no_grad;
  at::autocast::set_enabled(true); // expect: torch-autocast-leak [warning] "CUDA autocast is turned on here but not"
  auto output = model(inputs(device));
  if (last)
    at::autocast::set_enabled(false); // expect: torch-autocast-stale-cache
  at::autocast::clear_cache();
  std::cout << output.sum().item<float>() << "\n";
}

void clears_too_early(Net &model, torch::optim::Optimizer &optimizer,
                      torch::Device device) {
  at::autocast::set_enabled(true);
  at::autocast::clear_cache();
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::set_enabled(false); // expect: torch-autocast-stale-cache
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

void bfloat16_step(Net &model, torch::optim::Optimizer &optimizer,
                   torch::Device device) {
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::set_enabled(false); // expect: torch-autocast-stale-cache
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

void ends_in_an_inner_block(Net &model, torch::optim::Optimizer &optimizer,
                            torch::Device device, bool log) {
  optimizer.zero_grad();
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  {
    at::autocast::set_enabled(false); // expect: torch-autocast-stale-cache
    at::autocast::clear_cache();
    if (log)
      std::cout << "step done\n";
  }
  loss.backward();
  optimizer.step();
}

// The early exit turns autocast off, but only the main path clears the
// cache.
void skips_a_bad_batch(Net &model, torch::optim::Optimizer &optimizer,
                       torch::Device device) {
  optimizer.zero_grad();
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  if (!torch::isfinite(loss).item<bool>()) {
    at::autocast::set_enabled(false); // expect: torch-autocast-stale-cache
    at::autocast::clear_cache();
    return;
  }
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

// Cleared once the loop is over: every step but the first computes with the
// copies cast before the optimizer updated the weights.
void clears_after_the_loop(Net &model, torch::optim::Optimizer &optimizer,
                           torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
    auto loss =
        torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false); // expect: torch-autocast-stale-cache
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
  at::autocast::clear_cache();
}

// --- negatives -------------------------------------------------------------

void clears_after(Net &model, torch::optim::Optimizer &optimizer,
                  torch::Device device) {
  optimizer.zero_grad();
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

void clears_right_before(Net &model, torch::optim::Optimizer &optimizer,
                         torch::Device device) {
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::clear_cache();
  at::autocast::set_enabled(false);
  loss.backward();
  optimizer.step();
}

void clears_after_logging(Net &model, torch::optim::Optimizer &optimizer,
                          torch::Device device) {
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::set_enabled(false);
  std::cout << "loss " << loss.item<float>() << "\n";
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

// What Python's torch.autocast does on exit.
class Autocast {
public:
  Autocast() : previous_(at::autocast::is_enabled()) {
    at::autocast::increment_nesting();
    at::autocast::set_enabled(true);
  }
  ~Autocast() {
    if (at::autocast::decrement_nesting() == 0)
      at::autocast::clear_cache();
    at::autocast::set_enabled(previous_);
  }
  Autocast(const Autocast &) = delete;
  Autocast &operator=(const Autocast &) = delete;

private:
  bool previous_;
};

torch::Tensor scoped_loss(Net &model, torch::Device device) {
  Autocast autocast;
  return torch::cross_entropy_loss(model(inputs(device)), targets(device));
}

void resets_before_the_region(Net &model, torch::optim::Optimizer &optimizer,
                              torch::Device device) {
  at::autocast::set_enabled(false);
  for (int step = 0; step < 10; ++step) {
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
    auto loss =
        torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

// CPU autocast is not reported (see the rule's page).
void cpu_autocast() {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  at::autocast::set_cpu_enabled(true);
  auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64})),
                                        torch::randint(10, {32}));
  at::autocast::set_cpu_enabled(false);
  loss.backward();
  optimizer.step();
}

void caching_turned_off(Net &model, torch::optim::Optimizer &optimizer,
                        torch::Device device) {
  at::autocast::set_autocast_cache_enabled(false);
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::set_enabled(false);
  loss.backward();
  optimizer.step();
}

void loop_clears_each_step(Net &model, torch::optim::Optimizer &optimizer,
                           torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
    auto loss =
        torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
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
  one_step(model, optimizer, device);
  training_loop(model, optimizer, device);
  restores_the_saved_state(model, optimizer, device);
  guarded_loss(model, device).backward();
  end_mixed_precision();
  nested_like_python(model, optimizer, device);
  ends_on_a_condition(model, device, true);
  clears_too_early(model, optimizer, device);
  bfloat16_step(model, optimizer, device);
  skips_a_bad_batch(model, optimizer, device);
  clears_after_the_loop(model, optimizer, device);
  clears_after(model, optimizer, device);
  clears_right_before(model, optimizer, device);
  clears_after_logging(model, optimizer, device);
  scoped_loss(model, device).backward();
  resets_before_the_region(model, optimizer, device);
  cpu_autocast();
  caching_turned_off(model, optimizer, device);
  loop_clears_each_step(model, optimizer, device);
  return 0;
}
