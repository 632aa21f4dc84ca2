// torch-device-mismatch across functions, members, branches and lambdas: the
// device flow follows values through helpers, constructors and call sites.
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() { fc = register_module("fc", torch::nn::Linear(784, 10)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                     : torch::Device(torch::kCPU);
}

auto make_loader() {
  return torch::data::make_data_loader(
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(64).workers(2));
}

// The model is moved by a helper that takes it by reference.
void place_on(Net &model, const torch::Device &device) { model->to(device); }

void model_moved_in_helper() {
  torch::Device device = pick_device();
  Net model;
  place_on(model, device);
  auto x = torch::randn({16, 784});
  auto y = model->forward(x); // expect: torch-device-mismatch [error] "input 'x' is on the CPU but module 'model' is on the GPU, so the call fails at run time", torch-eval-without-no-grad [warning] "'model' runs forward for inference while autograd records"
}

// The model is moved in a constructor and kept as a member; a method feeds
// it unmoved batches.
class Trainer {
public:
  explicit Trainer(torch::Device device) : device_(device) {
    model_->to(device_);
  }
  void fit() {
    auto loader = make_loader();
    for (auto &batch : *loader) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs Linear layers in"
      auto output = model_->forward(batch.data); // expect: torch-device-mismatch
      torch::nll_loss(output, batch.target.to(device_)).backward(); // expect: torch-pageable-copy [warning] "'batch.target' is copied to the GPU from pageable"
    }
  }

private:
  torch::Device device_;
  Net model_;
};

void member_model() {
  Trainer trainer(pick_device());
  trainer.fit();
}

// The input is moved on one branch only.
void input_moved_on_one_branch(bool augment) {
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  auto x = torch::rand({8, 784});
  if (augment)
    x = x.to(device);
  auto y = model->forward(x); // expect: torch-device-mismatch, torch-eval-without-no-grad
}

// The inputs are moved while the module never is.
void module_never_moved() {
  torch::Device device = pick_device();
  Net model;
  auto x = torch::rand({8, 784}).to(device);
  auto y = model->forward(x); // expect: torch-device-mismatch, torch-eval-without-no-grad
}

// Host memory wrapped by from_blob goes into a model on the GPU.
void host_buffer_into_gpu_model() {
  if (!torch::cuda::is_available())
    return;
  torch::nn::Linear model(4, 2);
  model->to(torch::kCUDA);
  std::vector<float> values(4 * 8, 1.0f);
  auto x = torch::from_blob(values.data(), {8, 4});
  auto y = model(x); // expect: torch-device-mismatch, torch-eval-without-no-grad
}

// A tensor loaded from disk lands on the CPU.
void loaded_tensor_not_moved(const std::string &path) {
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  torch::Tensor x;
  torch::load(x, path);
  auto y = model->forward(x); // expect: torch-device-mismatch, torch-eval-without-no-grad
}

// A helper builds the batch on the CPU.
torch::Tensor make_batch(int64_t n) { return torch::randn({n, 784}); }

void helper_makes_cpu_batch() {
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  auto y = model->forward(make_batch(32)); // expect: torch-device-mismatch, torch-eval-without-no-grad
}

// A lambda captures the model on the GPU and is called with CPU tensors.
void lambda_step() {
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  auto step = [&](const torch::Tensor &x) { return model->forward(x); }; // expect: torch-device-mismatch
  for (int i = 0; i < 10; ++i)
    step(torch::randn({4, 784}));
}

// The model is held through a shared_ptr.
void shared_ptr_module() {
  torch::Device device = pick_device();
  auto model = std::make_shared<NetImpl>();
  model->to(device);
  auto y = model->forward(torch::zeros({2, 784})); // expect: torch-device-mismatch, torch-eval-without-no-grad
}

// Correct: a helper that returns x.to(device).
torch::Tensor to_device(const torch::Tensor &x, const torch::Device &device) {
  return x.to(device);
}

void moved_through_helper() {
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  auto y = model->forward(to_device(torch::randn({4, 784}), device)); // expect: torch-eval-without-no-grad
}

// Correct: created on the device, moved without blocking, moved on both
// branches.
void created_or_moved_on_device(bool half) {
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  auto a = torch::randn({4, 784}, torch::TensorOptions().device(device));
  auto b = torch::rand({4, 784}).to(device, /*non_blocking=*/true);
  torch::Tensor c = torch::rand({4, 784});
  if (half)
    c = c.to(device, torch::kFloat);
  else
    c = c.to(device);
  auto out = model->forward(a) + model->forward(b) + model->forward(c);
  auto target = torch::zeros_like(out);
  torch::mse_loss(out, target).backward();
}

// Correct: the member model and the batches both go to the member device.
class GoodTrainer {
public:
  explicit GoodTrainer(torch::Device device) : device_(device) {
    model_->to(device_);
  }
  void fit() {
    auto loader = make_loader();
    for (auto &batch : *loader) { // expect: torch-missing-mixed-precision
      auto output = model_->forward(batch.data.to(device_)); // expect: torch-pageable-copy
      torch::nll_loss(output, batch.target.to(device_)).backward(); // expect: torch-pageable-copy
    }
  }

private:
  torch::Device device_;
  Net model_;
};

// Correct: the examples' structure, a template train function given the
// model, the device and the loader by its caller.
template <typename DataLoader>
void train_epoch(Net &model, torch::Device device, DataLoader &loader,
                 torch::optim::Optimizer &optimizer) {
  model->train();
  for (auto &batch : loader) { // expect: torch-missing-mixed-precision
    auto data = batch.data.to(device), targets = batch.target.to(device); // expect: torch-pageable-copy, torch-pageable-copy
    optimizer.zero_grad();
    auto output = model->forward(data);
    auto loss = torch::nll_loss(output, targets);
    loss.backward();
    optimizer.step();
  }
}

void examples_structure() {
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  GoodTrainer trainer(device);
  trainer.fit();
  auto loader = make_loader();
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int epoch = 0; epoch < 3; ++epoch)
    train_epoch(model, device, *loader, optimizer);
}

// Correct: a CPU-only program, and a dtype-only move that keeps the device.
void cpu_only_program() {
  Net model;
  model->to(torch::kFloat64);
  auto x = torch::rand({2, 784}, torch::kFloat64);
  std::cout << model->forward(x) << "\n"; // expect: torch-eval-without-no-grad
}

// Correct: nothing is known of the caller's tensors.
torch::Tensor run_with(Net &model, const torch::Tensor &x) {
  return model->forward(x);
}

// Correct: both moved inside the availability check.
void moved_together_when_available() {
  Net model;
  auto x = torch::rand({2, 784});
  if (torch::cuda::is_available()) {
    model->to(torch::kCUDA);
    x = x.to(torch::kCUDA);
  }
  auto y = model->forward(x); // expect: torch-eval-without-no-grad
}

// Correct: a lambda that moves what it is given.
void lambda_moves_input() {
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  auto step = [&](const torch::Tensor &x) {
    return model->forward(x.to(device));
  };
  step(torch::randn({4, 784}));
}

// Correct: a recurrent decoder's sequence lengths stay on the CPU by design,
// since packing reads them on the host (libtorch 1.7 and later refuse them
// on a GPU); the features it is given must still be on its device.
struct CaptionDecoderImpl : torch::nn::Module {
  CaptionDecoderImpl() { fc = register_module("fc", torch::nn::Linear(16, 8)); }
  torch::Tensor forward(torch::Tensor features, torch::Tensor lengths) {
    auto steps = lengths[0].item<int64_t>();
    return fc->forward(features).narrow(1, 0, steps);
  }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(CaptionDecoder);

void packed_sequence_lengths() {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  CaptionDecoder decoder;
  decoder->to(device);
  auto features = torch::randn({4, 5, 16}, torch::TensorOptions().device(device));
  auto lengths = torch::tensor({5, 4, 2, 1});
  auto outputs = decoder->forward(features, lengths);
  auto packed = torch::nn::utils::rnn::pack_padded_sequence(outputs, lengths,
                                                            /*batch_first=*/true);
  auto host_features = torch::randn({4, 5, 16});
  auto more = decoder->forward(host_features, lengths); // expect: torch-device-mismatch
  std::cout << packed.data().sum() << more.sum() << "\n";
}

// Correct: a module that overrides to() (to move a buffer it keeps outside
// its registered parameters) is still moved by it.
struct BackboneImpl : torch::nn::Module {
  BackboneImpl() { fc = register_module("fc", torch::nn::Linear(784, 10)); }
  void to(torch::Device device, bool non_blocking = false) override {
    torch::nn::Module::to(device, non_blocking);
    scale = scale.to(device, non_blocking);
  }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x) * scale; }
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale = torch::ones({10});
};
TORCH_MODULE(Backbone);

void overridden_to() {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  Backbone backbone;
  backbone->to(device);
  auto x = torch::randn({2, 784}, torch::TensorOptions().device(device));
  std::cout << backbone->forward(x).sum() << "\n";
}

// The model is moved in the constructor only when the GPU is asked for, and
// the device member is chosen by the same flag: the input follows the device
// member, so both are on the GPU or both on the CPU. The flow does not
// correlate the move's condition with the member's value; since the module
// is moved to the very device the input is on, on the paths where it is
// moved, no error is claimed from that gap.
class Detector {
public:
  explicit Detector(bool use_cuda)
      : device_(use_cuda ? torch::kCUDA : torch::kCPU) { // expect: torch-unchecked-cuda [warning] "'torch::kCUDA' is used without checking"
    if (use_cuda)
      model_->to(device_);
    model_->eval();
  }
  torch::Tensor detect(const torch::Tensor &frame) {
    torch::NoGradGuard no_grad;
    auto x = frame.to(device_);
    return model_->forward(x);
  }

private:
  torch::Device device_;
  Net model_;
};

void moved_under_the_device_choice(bool use_gpu) {
  Detector detector(use_gpu);
  detector.detect(torch::rand({1, 784}));
}

// A loss written as a module that holds only other losses has no
// parameters: it computes wherever its inputs are, so it has no device of
// its own to disagree with them.
struct DiceLossImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &p, const torch::Tensor &t) {
    return 1 - (2 * (p * t).sum() + 1) / (p.sum() + t.sum() + 1);
  }
};
TORCH_MODULE(DiceLoss);

class CombinedLoss : public torch::nn::Module {
public:
  explicit CombinedLoss(double weight) : weight_(weight) {}
  torch::Tensor forward(const torch::Tensor &p, const torch::Tensor &t) {
    return weight_ * dice_->forward(p, t) + torch::mse_loss(p, t);
  }

private:
  double weight_;
  DiceLoss dice_;
};

void loss_module_of_losses() {
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  CombinedLoss criterion(0.5);
  auto x = torch::rand({8, 784}, torch::TensorOptions().device(device));
  auto y = torch::rand({8, 10}, torch::TensorOptions().device(device));
  criterion.forward(model->forward(x), y).backward();
}

int main() {
  model_moved_in_helper();
  member_model();
  input_moved_on_one_branch(true);
  module_never_moved();
  host_buffer_into_gpu_model();
  loaded_tensor_not_moved("x.pt");
  helper_makes_cpu_batch();
  lambda_step();
  shared_ptr_module();
  moved_through_helper();
  created_or_moved_on_device(false);
  examples_structure();
  cpu_only_program();
  moved_together_when_available();
  lambda_moves_input();
  packed_sequence_lengths();
  overridden_to();
  moved_under_the_device_choice(false);
  loss_module_of_losses();
}
