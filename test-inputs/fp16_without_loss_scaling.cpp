// torch-fp16-without-loss-scaling: a training loop that turns CUDA autocast
// on in float16 (its default, or chosen) and runs backward() on a loss that
// is not scaled, with the names of libtorch up to 2.3 (deprecated wrappers
// since 2.4, so this program is analyzed against both generations).
// bfloat16, a scaled loss, a single step, inference, CPU autocast and a
// dtype chosen at run time are fine.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <cmath>
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

void default_dtype(Net &model, torch::optim::Optimizer &optimizer,
                   torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling [warning] "CUDA autocast computes in float16 in this training"
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

void half_chosen(Net &model, torch::optim::Optimizer &optimizer,
                 torch::Device device) {
  at::autocast::set_autocast_gpu_dtype(at::kHalf);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

void float16_chosen(Net &model, torch::optim::Optimizer &optimizer,
                    torch::Device device) {
  at::autocast::set_autocast_gpu_dtype(torch::kFloat16);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

void train_step(Net &model, torch::optim::Optimizer &optimizer,
                torch::Device device) {
  optimizer.zero_grad();
  at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

void loop_calling_a_step(Net &model, torch::optim::Optimizer &optimizer,
                         torch::Device device) {
  for (int step = 0; step < 100; ++step)
    train_step(model, optimizer, device);
}

torch::Tensor amp_loss(Net &model, torch::Device device) {
  at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  return loss;
}

void loop_running_backward(Net &model, torch::optim::Optimizer &optimizer,
                           torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    amp_loss(model, device).backward();
    optimizer.step();
  }
}

void backward_in_the_region(Net &model, torch::optim::Optimizer &optimizer,
                            torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    loss.backward(); // expect: torch-backward-under-autocast [warning] "the backward pass runs while CUDA autocast is"
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    optimizer.step();
  }
}

void autograd_backward(Net &model, torch::optim::Optimizer &optimizer,
                       torch::Device device) {
  int step = 0;
  while (step++ < 100) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    torch::autograd::backward({loss});
    optimizer.step();
  }
}

void averaged_not_scaled(Net &model, torch::optim::Optimizer &optimizer,
                         torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    for (int micro = 0; micro < 4; ++micro) {
      at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
      auto loss =
          torch::cross_entropy_loss(model(inputs(device)), targets(device)) / 4;
      at::autocast::set_enabled(false);
      at::autocast::clear_cache();
      loss.backward();
    }
    optimizer.step();
  }
}

// bfloat16 is chosen only on a path that returns before the loop.
void bfloat16_only_for_a_dry_run(Net &model,
                                 torch::optim::Optimizer &optimizer,
                                 torch::Device device, bool dry_run) {
  if (dry_run) {
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    return;
  }
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true); // expect: torch-fp16-without-loss-scaling
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

// --- negatives -------------------------------------------------------------

void bfloat16_chosen(Net &model, torch::optim::Optimizer &optimizer,
                     torch::Device device) {
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true);
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

// Loss scaling by hand: scale up, unscale the gradients, skip a step whose
// gradients overflowed.
void scaled_loss(Net &model, torch::optim::Optimizer &optimizer,
                 torch::Device device) {
  double scale = 65536.0;
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true);
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    (loss * scale).backward();
    bool finite = true;
    for (auto &parameter : model->parameters()) {
      parameter.mutable_grad().div_(scale);
      finite = finite && parameter.grad().isfinite().all().item<bool>(); // expect: torch-sync-in-loop
    }
    if (finite)
      optimizer.step();
    else
      scale /= 2;
  }
}

void scaled_into_a_variable(Net &model, torch::optim::Optimizer &optimizer,
                            torch::Device device) {
  const double scale = 1024.0;
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true);
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    auto scaled = loss * scale;
    scaled.backward();
    for (auto &parameter : model->parameters())
      parameter.mutable_grad().div_(scale);
    optimizer.step();
  }
}

void scaled_with_mul(Net &model, torch::optim::Optimizer &optimizer,
                     torch::Device device) {
  torch::Tensor scale = torch::full({}, 1024.0, device);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true);
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.mul(scale).backward();
    for (auto &parameter : model->parameters())
      parameter.mutable_grad().div_(scale);
    optimizer.step();
  }
}

void a_single_step(Net &model, torch::optim::Optimizer &optimizer,
                   torch::Device device) {
  optimizer.zero_grad();
  at::autocast::set_enabled(true);
  auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
  at::autocast::set_enabled(false);
  at::autocast::clear_cache();
  loss.backward();
  optimizer.step();
}

void inference_loop(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  torch::Tensor correct = torch::zeros({}, device);
  for (int batch = 0; batch < 100; ++batch) {
    at::autocast::set_enabled(true);
    auto prediction = model(inputs(device)).argmax(1);
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    correct += prediction.eq(targets(device)).sum();
  }
  std::cout << correct << " correct\n";
}

void cpu_autocast_training() {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_cpu_enabled(true);
    auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64})),
                                          torch::randint(10, {32}));
    at::autocast::set_cpu_enabled(false);
    loss.backward();
    optimizer.step();
  }
}

void dtype_chosen_at_run_time(Net &model, torch::optim::Optimizer &optimizer,
                              torch::Device device, at::ScalarType dtype) {
  at::autocast::set_autocast_gpu_dtype(dtype);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true);
    auto loss = torch::cross_entropy_loss(model(inputs(device)), targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

// Autocast as it should be: bfloat16, forward and loss in the region, the
// cache cleared when it ends, backward outside.
void correct_mixed_precision(Net &model, torch::optim::Optimizer &optimizer,
                             torch::Device device) {
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true);
    auto output = model(inputs(device));
    auto loss = torch::cross_entropy_loss(output, targets(device));
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
  default_dtype(model, optimizer, device);
  half_chosen(model, optimizer, device);
  float16_chosen(model, optimizer, device);
  loop_calling_a_step(model, optimizer, device);
  loop_running_backward(model, optimizer, device);
  backward_in_the_region(model, optimizer, device);
  autograd_backward(model, optimizer, device);
  averaged_not_scaled(model, optimizer, device);
  bfloat16_chosen(model, optimizer, device);
  scaled_loss(model, optimizer, device);
  scaled_into_a_variable(model, optimizer, device);
  scaled_with_mul(model, optimizer, device);
  a_single_step(model, optimizer, device);
  inference_loop(model, device);
  cpu_autocast_training();
  dtype_chosen_at_run_time(model, optimizer, device, at::kHalf);
  correct_mixed_precision(model, optimizer, device);
  return 0;
}
