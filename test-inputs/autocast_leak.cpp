// torch-autocast-leak: a function turns autocast on and off again, and some
// path skips the switch-off (return, throw, break, continue, a branch that
// turns it off on one side, a handler that swallows an exception from the
// forward pass), with the names of libtorch up to 2.3 (deprecated wrappers
// since 2.4, so this program is analyzed against both generations). Paths
// that all turn it off (also under one flag tested twice), a guard object, a
// function that only turns it on, and handlers that turn it off or rethrow
// are fine.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <iostream>
#include <stdexcept>

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

torch::Tensor early_return(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  at::autocast::set_enabled(true);
  if (input.numel() == 0)
    return input; // expect: torch-autocast-leak [warning] "CUDA autocast stays on when control leaves here, so what runs next runs" // expect-note: "autocast is turned off only on the"
  auto output = model(input);
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  return output;
}

torch::Tensor throws_in_the_region(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  at::autocast::set_enabled(true);
  if (input.dim() != 2)
    throw std::invalid_argument("expected a batch of vectors"); // expect: torch-autocast-leak
  auto output = model(input);
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  return output;
}

void breaks_out_of_the_loop(Net &model, torch::Device device, int limit) {
  torch::NoGradGuard no_grad;
  torch::Tensor total = torch::zeros({}, device);
  for (int batch = 0; batch < 100; ++batch) {
    at::autocast::set_enabled(true);
    total += model(torch::randn({32, 64}, device)).sum();
    if (batch == limit)
      break; // expect: torch-autocast-leak
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  }
  std::cout << total << "\n";
}

void continues_past_the_switch_off(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  torch::Tensor total = torch::zeros({}, device);
  for (int batch = 0; batch < 100; ++batch) {
    at::autocast::set_enabled(true);
    auto output = model(torch::randn({32, 64}, device));
    if (batch % 10 == 0)
      continue; // expect: torch-autocast-leak
    total += output.sum();
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  }
  std::cout << total << "\n";
}

torch::Tensor off_on_one_branch(Net &model, torch::Tensor input,
                                bool keep_amp) {
  torch::NoGradGuard no_grad;
  at::autocast::set_enabled(true);
  auto output = model(input);
  if (!keep_amp) {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  }
  return output; // expect: torch-autocast-leak
}

void void_function_off_on_one_branch(Net &model, torch::Tensor input,
                                     bool verbose) {
  torch::NoGradGuard no_grad;
  at::autocast::set_enabled(true); // expect: torch-autocast-leak
  auto output = model(input);
  if (verbose) {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    std::cout << output.sizes() << "\n";
  }
}

torch::Tensor swallows_the_exception(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  torch::Tensor output;
  try {
    at::autocast::set_enabled(true);
    output = model(input);
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  } catch (const c10::Error &error) { // expect: torch-autocast-leak
    std::cerr << "forward failed: " << error.what() << "\n";
  }
  return output;
}

torch::Tensor returns_the_output_early(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  at::autocast::set_enabled(true);
  auto output = model(input);
  if (output.size(1) == 10)
    return output; // expect: torch-autocast-leak
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  return output.narrow(1, 0, 10);
}

torch::Tensor cpu_region_early_return(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  at::autocast::set_cpu_enabled(true);
  if (input.numel() == 0)
    return input; // expect: torch-autocast-leak
  auto output = model(input);
  at::autocast::set_cpu_enabled(false);
  return output;
}

torch::Tensor restore_skipped(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  bool previous = at::autocast::is_enabled();
  at::autocast::set_enabled(true);
  auto output = model(input);
  if (output.numel() == 0)
    return output; // expect: torch-autocast-leak
  at::autocast::clear_cache();
  at::autocast::set_enabled(previous);
  return output;
}

// --- negatives -------------------------------------------------------------

torch::Tensor straight_region(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  at::autocast::set_enabled(true);
  auto output = model(input);
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  return output;
}

torch::Tensor returns_before_the_region(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  if (input.numel() == 0)
    return input;
  at::autocast::set_enabled(true);
  auto output = model(input);
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  return output;
}

torch::Tensor returns_after_the_region(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  at::autocast::set_enabled(true);
  auto output = model(input);
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  if (output.numel() == 0)
    return input;
  return output;
}

torch::Tensor off_on_both_branches(Net &model, torch::Tensor input,
                                   bool log) {
  torch::NoGradGuard no_grad;
  at::autocast::set_enabled(true);
  auto output = model(input);
  if (log) {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    std::cout << output.sizes() << "\n";
  } else {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  }
  return output;
}

torch::Tensor guard_object(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  Autocast autocast;
  if (input.numel() == 0)
    return input;
  return model(input);
}

// A setting for the whole program: nothing turns it off here.
void enable_mixed_precision() { at::autocast::set_cpu_enabled(true); }

torch::Tensor handler_turns_it_off(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  torch::Tensor output;
  try {
    at::autocast::set_enabled(true);
    output = model(input);
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  } catch (const c10::Error &error) {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    std::cerr << "forward failed: " << error.what() << "\n";
  }
  return output;
}

torch::Tensor handler_rethrows(Net &model, torch::Tensor input) {
  torch::NoGradGuard no_grad;
  torch::Tensor output;
  try {
    at::autocast::set_enabled(true);
    output = model(input);
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  } catch (const c10::Error &error) {
    std::cerr << "forward failed: " << error.what() << "\n";
    throw;
  }
  return output;
}

void inner_loop_breaks_inside_the_region(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  torch::Tensor total = torch::zeros({}, device);
  at::autocast::set_enabled(true);
  for (int chunk = 0; chunk < 8; ++chunk) {
    total += model(torch::randn({32, 64}, device)).sum();
    if (chunk == 4)
      break;
  }
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  std::cout << total << "\n";
}

void turned_off_before_continuing(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  torch::Tensor total = torch::zeros({}, device);
  for (int batch = 0; batch < 100; ++batch) {
    at::autocast::set_enabled(true);
    auto output = model(torch::randn({32, 64}, device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    if (batch % 10 == 0)
      continue;
    total += output.sum();
  }
  std::cout << total << "\n";
}

// Autocast as it should be: bfloat16, forward and loss in the region, the
// cache cleared when it ends, backward outside.
void correct_mixed_precision(Net &model, torch::optim::Optimizer &optimizer,
                             torch::Device device) {
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true);
    auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64}, device)),
                                          torch::randint(10, {32}, device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

// Correct: turned on and off under the same flag, which the function never
// changes, so the second branch goes the way the first went.
torch::Tensor on_and_off_under_one_flag(Net &model, torch::Tensor input,
                                        bool amp) {
  torch::NoGradGuard no_grad;
  if (amp)
    at::autocast::set_enabled(true);
  auto output = model(input);
  if (amp) {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  }
  return output;
}

// The flag changes between the two branches: a path may leave it on.
torch::Tensor flag_changed_in_between(Net &model, torch::Tensor input,
                                      bool amp) {
  torch::NoGradGuard no_grad;
  if (amp)
    at::autocast::set_enabled(true);
  auto output = model(input);
  amp = input.size(0) > 1;
  if (amp) {
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
  }
  return output; // expect: torch-autocast-leak
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
  auto input = torch::randn({32, 64}, device);
  early_return(model, input);
  throws_in_the_region(model, input);
  breaks_out_of_the_loop(model, device, 50);
  continues_past_the_switch_off(model, device);
  off_on_one_branch(model, input, false);
  void_function_off_on_one_branch(model, input, true);
  swallows_the_exception(model, input);
  returns_the_output_early(model, input);
  restore_skipped(model, input);
  straight_region(model, input);
  returns_before_the_region(model, input);
  returns_after_the_region(model, input);
  off_on_both_branches(model, input, true);
  on_and_off_under_one_flag(model, input, true);
  flag_changed_in_between(model, input, true);
  guard_object(model, input);
  handler_turns_it_off(model, input);
  handler_rethrows(model, input);
  inner_loop_breaks_inside_the_region(model, device);
  turned_off_before_continuing(model, device);
  correct_mixed_precision(model, optimizer, device);
  Net cpu_model;
  enable_mixed_precision();
  cpu_region_early_return(cpu_model, torch::randn({32, 64}));
  return 0;
}
