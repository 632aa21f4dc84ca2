// torch-half-model-training: a module converted to float16 whose parameters
// an optimizer is given and then steps, through variables, members and
// function parameters. A float16 module used for inference only, a module
// in float32 or moved without a dtype, a float16 copy beside a float32
// model that trains, and float16 tensors are fine.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <iostream>
#include <memory>

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

torch::Device gpu_or_cpu() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                     : torch::Device(torch::kCPU);
}

torch::Tensor half_inputs(torch::Device device) {
  return torch::randn({32, 64}, device).to(torch::kHalf);
}
torch::Tensor targets(torch::Device device) {
  return torch::randint(10, {32}, device);
}

void train(Net &model, torch::optim::Optimizer &optimizer,
           torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model(half_inputs(device)).to(torch::kFloat),
                                          targets(device));
    loss.backward();
    optimizer.step();
  }
}

// --- positives -------------------------------------------------------------

void half_then_sgd(torch::Device device) {
  Net model;
  model->to(device);
  model->to(torch::kHalf); // expect: torch-half-model-training [warning] "module 'model' is converted to float16 and an optimizer steps its parameters, so an update smaller than" // expect-note: "keep the weights in float32 and compute"
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  train(model, optimizer, device);
}

void device_and_half_then_adam(torch::Device device) {
  Net model;
  model->to(device, torch::kHalf); // expect: torch-half-model-training
  torch::optim::Adam optimizer(model->parameters(),
                               torch::optim::AdamOptions(1e-4));
  train(model, optimizer, device);
}

void float16_spelled(torch::Device device) {
  Net model;
  model->to(device, torch::kFloat16); // expect: torch-half-model-training
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  train(model, optimizer, device);
}

void aten_half(torch::Device device) {
  Net model;
  model->to(device);
  model->to(at::kHalf, /*non_blocking=*/false); // expect: torch-half-model-training
  torch::optim::RMSprop optimizer(model->parameters());
  train(model, optimizer, device);
}

void converted_after_the_optimizer(torch::Device device) {
  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  // Conversion replaces the parameters' data in place: the optimizer still
  // holds them.
  model->to(torch::kHalf); // expect: torch-half-model-training
  train(model, optimizer, device);
}

void stepped_in_place(torch::Device device) {
  Net model;
  model->to(device, torch::kHalf); // expect: torch-half-model-training
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(
        model(half_inputs(device)).to(torch::kFloat), targets(device));
    loss.backward();
    optimizer.step();
  }
}

void to_half(Net &model) {
  model->to(torch::kHalf); // expect: torch-half-model-training
}

void converted_by_a_helper(torch::Device device) {
  Net model;
  model->to(device);
  to_half(model);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  train(model, optimizer, device);
}

void sequential_in_half(torch::Device device) {
  torch::nn::Sequential model(torch::nn::Linear(64, 128), torch::nn::ReLU(),
                              torch::nn::Linear(128, 10));
  model->to(device, torch::kHalf); // expect: torch-half-model-training
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(
        model->forward(half_inputs(device)).to(torch::kFloat), targets(device));
    loss.backward();
    optimizer.step();
  }
}

void impl_held_by_a_shared_pointer(torch::Device device) {
  auto model = std::make_shared<NetImpl>();
  model->to(device, torch::kHalf); // expect: torch-half-model-training
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(
        model->forward(half_inputs(device)).to(torch::kFloat), targets(device));
    loss.backward();
    optimizer.step();
  }
}

struct Trainer {
  explicit Trainer(torch::Device device)
      : device(device), optimizer(model->parameters(), 0.01) {
    model->to(device, torch::kHalf); // expect: torch-half-model-training
  }
  void step() {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(
        model(half_inputs(device)).to(torch::kFloat), targets(device));
    loss.backward();
    optimizer.step();
  }
  torch::Device device;
  Net model;
  torch::optim::SGD optimizer;
};

// --- negatives -------------------------------------------------------------

void half_for_inference(torch::Device device) {
  torch::NoGradGuard no_grad;
  Net model;
  model->to(device, torch::kHalf);
  std::cout << model(half_inputs(device)).argmax(1) << "\n";
}

void optimizer_never_steps(torch::Device device) {
  Net model;
  model->to(device, torch::kHalf);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  optimizer.zero_grad();
}

void float32_model(torch::Device device) {
  Net model;
  model->to(device, torch::kFloat);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64}, device)),
                                          targets(device));
    loss.backward();
    optimizer.step();
  }
}

void moved_without_a_dtype(torch::Device device) {
  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64}, device)),
                                          targets(device));
    loss.backward();
    optimizer.step();
  }
}

void half_copy_beside_a_float32_model(torch::Device device) {
  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64}, device)),
                                          targets(device));
    loss.backward();
    optimizer.step();
  }
  torch::NoGradGuard no_grad;
  Net serving;
  serving->to(device, torch::kHalf);
  std::cout << serving(half_inputs(device)).argmax(1) << "\n";
}

void half_tensors_only(torch::Device device) {
  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto input = half_inputs(device).to(torch::kFloat);
    auto loss = torch::cross_entropy_loss(model(input), targets(device));
    loss.backward();
    optimizer.step();
  }
}

void half_inference_after_training(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  Net exported;
  exported->to(device, torch::kHalf);
  std::cout << exported(half_inputs(device)).argmax(1) << "\n";
  std::cout << model(torch::randn({32, 64}, device)).argmax(1) << "\n";
}

// Mixed precision as it should be: float32 weights, bfloat16 compute.
void correct_mixed_precision(torch::Device device) {
  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    at::autocast::set_enabled(true);
    auto loss = torch::cross_entropy_loss(model(torch::randn({32, 64}, device)),
                                          targets(device));
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    optimizer.step();
  }
}

int main() {
  torch::Device device = gpu_or_cpu();
  half_then_sgd(device);
  device_and_half_then_adam(device);
  float16_spelled(device);
  aten_half(device);
  converted_after_the_optimizer(device);
  stepped_in_place(device);
  converted_by_a_helper(device);
  sequential_in_half(device);
  impl_held_by_a_shared_pointer(device);
  Trainer trainer(device);
  for (int step = 0; step < 100; ++step)
    trainer.step();
  half_for_inference(device);
  optimizer_never_steps(device);
  float32_model(device);
  moved_without_a_dtype(device);
  half_copy_beside_a_float32_model(device);
  half_tensors_only(device);
  Net trained;
  trained->to(device);
  half_inference_after_training(trained, device);
  correct_mixed_precision(device);
  return 0;
}
