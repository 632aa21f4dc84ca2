// torch-module-never-moved: a program that uses CUDA runs a module on every
// step of a loop, but no path moves the module, or loads it, onto a device:
// it runs on the CPU. Modules moved or loaded onto a device, modules run
// once, modules without parameters, TorchScript modules loaded without a
// device (the file decides where their weights go), modules kept on the CPU
// on purpose (`to(torch::kCPU)`), and programs that never ask for CUDA
// (module_never_moved_cpu_only.cpp) are fine.
#include <torch/script.h>
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(16, 32));
    fc2 = register_module("fc2", torch::nn::Linear(32, 4));
  }
  torch::Tensor forward(torch::Tensor x) {
    return fc2(torch::relu(fc1(x)));
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

struct Samples : torch::data::datasets::Dataset<Samples> {
  torch::data::Example<> get(size_t index) override {
    return {torch::rand({16}), torch::tensor(static_cast<int64_t>(index % 4))};
  }
  torch::optional<size_t> size() const override { return 1024; }
};

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA) // expect-note: "the program asks for CUDA here"
                                     : torch::Device(torch::kCPU);
}

torch::Tensor next_input();

// --- positives -------------------------------------------------------------

void train_without_moving() {
  Net model; // expect-note: "'model' is created on the CPU here, and no path moves it before the loop runs it"
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto loader = torch::data::make_data_loader(
      Samples().map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(64).workers(2));
  for (auto &batch : *loader) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model->forward(batch.data), batch.target); // expect: torch-module-never-moved [warning] "module 'model' is never moved to the GPU, so it runs on the CPU on every iteration although the program uses CUDA" // expect-note: "move it once before the loop ('model->to(device)'), or load its weights onto the device ('torch::load(model, path, device)')"
    loss.backward();
    optimizer.step();
  }
}

void infer_without_moving() {
  torch::NoGradGuard no_grad;
  Net detector;
  detector->eval();
  for (int frame = 0; frame < 1000; ++frame)
    std::cout << detector(next_input()).argmax(1) << "\n"; // expect: torch-module-never-moved [warning] "module 'detector' is never moved to the GPU"
}

void inputs_moved_but_not_the_model() {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  Net classifier;
  for (int i = 0; i < 100; ++i) {
    auto x = next_input().to(device);
    classifier->forward(x); // expect: torch-module-never-moved [warning] "module 'classifier' is never moved", torch-device-mismatch [error] "module 'classifier' is never moved off the CPU"
  }
}

class Tracker {
public:
  Tracker() : net_(std::make_shared<NetImpl>()) {}
  void run() {
    torch::NoGradGuard no_grad;
    for (int i = 0; i < 1000; ++i)
      net_->forward(next_input()); // expect: torch-module-never-moved [warning] "module 'net_' is never moved"
  }

private:
  std::shared_ptr<NetImpl> net_;
};

torch::Tensor score(Net &model, const torch::Tensor &x) {
  return model(x); // expect: torch-module-never-moved [warning] "module 'model' is never moved"
}

void calls_a_helper_per_step() {
  torch::NoGradGuard no_grad;
  Net scorer;
  for (int i = 0; i < 1000; ++i)
    score(scorer, next_input()); // expect-note: "called on every iteration of a loop here"
}

void weights_copied_from_the_gpu(const std::vector<torch::Tensor> &gpu_weights) {
  torch::NoGradGuard no_grad;
  Net replica;
  auto params = replica->parameters();
  for (size_t i = 0; i < params.size(); ++i)
    params[i].copy_(gpu_weights[i]);
  for (int i = 0; i < 1000; ++i)
    replica(next_input()); // expect: torch-module-never-moved [warning] "module 'replica' is never moved"
}

void holder_copy_is_the_same_module() {
  torch::NoGradGuard no_grad;
  Net original;
  Net alias = original;
  for (int i = 0; i < 1000; ++i)
    alias(next_input()); // expect: torch-module-never-moved [warning] "module 'alias' is never moved"
}

void weights_loaded_on_the_host(const std::string &path) {
  torch::NoGradGuard no_grad;
  Net restored;
  torch::load(restored, path);
  for (int i = 0; i < 1000; ++i)
    restored(next_input()); // expect: torch-module-never-moved [warning] "module 'restored' is never moved"
}

void converted_but_not_moved() {
  torch::NoGradGuard no_grad;
  Net halved;
  halved->to(torch::kHalf);
  for (int i = 0; i < 1000; ++i)
    halved(next_input().to(torch::kHalf)); // expect: torch-module-never-moved [warning] "module 'halved' is never moved"
}

void sequential_built_in_place() {
  torch::NoGradGuard no_grad;
  torch::nn::Sequential head(torch::nn::Linear(16, 8), torch::nn::ReLU(),
                             torch::nn::Linear(8, 2));
  for (int i = 0; i < 1000; ++i)
    head->forward(next_input()); // expect: torch-module-never-moved [warning] "module 'head' is never moved"
}

void while_serving() {
  torch::NoGradGuard no_grad;
  auto server_model = std::make_shared<NetImpl>();
  while (true) {
    auto request = next_input();
    if (!request.defined())
      break;
    server_model->forward(request); // expect: torch-module-never-moved [warning] "module 'server_model' is never moved"
  }
}

// --- negatives -------------------------------------------------------------

void moved_before_the_loop() {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  Net moved;
  moved->to(device);
  for (int i = 0; i < 1000; ++i)
    moved(next_input().to(device));
}

void loaded_onto_the_device(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  Net loaded;
  torch::load(loaded, path, device);
  for (int i = 0; i < 1000; ++i)
    loaded(next_input().to(device));
}

void moved_by_a_helper(Net &model, torch::Device device) { model->to(device); }

void moved_through_a_call() {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  Net helped;
  moved_by_a_helper(helped, device);
  for (int i = 0; i < 1000; ++i)
    helped(next_input().to(device));
}

void moved_on_one_path(bool use_gpu) {
  torch::NoGradGuard no_grad;
  Net maybe;
  if (use_gpu)
    maybe->to(torch::kCUDA); // expect: torch-unchecked-cuda
  for (int i = 0; i < 1000; ++i)
    maybe(next_input());
}

void kept_on_the_cpu_on_purpose() {
  torch::NoGradGuard no_grad;
  Net on_host;
  on_host->to(torch::kCPU); // expect: torch-hardcoded-cpu-device
  for (int i = 0; i < 1000; ++i)
    on_host(next_input());
}

void run_once() {
  torch::NoGradGuard no_grad;
  Net once;
  std::cout << once(next_input()) << "\n";
}

// A loss written as a module, given the device it makes its targets on.
struct BoxLossImpl : torch::nn::Module {
  BoxLossImpl(torch::Tensor anchors, torch::Device device) : device(device) {
    this->anchors = register_buffer("anchors", anchors.to(device));
  }
  torch::Tensor forward(torch::Tensor output) {
    return (output.to(device) - anchors).abs().mean();
  }
  torch::Tensor anchors;
  torch::Device device;
};

void loss_told_its_device() {
  torch::NoGradGuard no_grad;
  auto criterion = BoxLossImpl(torch::rand({4}), pick_device());
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 1000; ++i)
    total += criterion.forward(next_input());
}

// A network that moves itself to the device its constructor picks.
struct CriticImpl : torch::nn::Module {
  CriticImpl()
      : device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU) {
    fc = register_module("fc", torch::nn::Linear(16, 1));
    this->to(device);
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x.to(device)); }
  torch::Device device;
  torch::nn::Linear fc{nullptr};
};

class Agent {
public:
  void learn() {
    torch::NoGradGuard no_grad;
    for (int i = 0; i < 1000; ++i)
      critic_.forward(next_input());
  }

private:
  CriticImpl critic_;
};

void loss_module_per_step() {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  torch::nn::MSELoss criterion;
  for (int i = 0; i < 1000; ++i) {
    auto x = next_input().to(device);
    std::cout << criterion(x, x).item<float>() << "\n"; // expect: torch-sync-in-loop
  }
}

void scripted_from_the_file(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::jit::script::Module scripted = torch::jit::load(path);
  for (int i = 0; i < 1000; ++i)
    scripted.forward({next_input()});
}

void scripted_onto_the_device(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  torch::jit::script::Module on_device = torch::jit::load(path, device); // expect: torch-cudnn-benchmark-off
  for (int i = 0; i < 1000; ++i)
    on_device.forward({next_input().to(device)});
}

class MovedInSetup {
public:
  void setup(torch::Device device) { net_->to(device); }
  void run() {
    torch::NoGradGuard no_grad;
    for (int i = 0; i < 1000; ++i)
      net_->forward(next_input());
  }

private:
  Net net_;
};

int main() {
  Tracker tracker;
  tracker.run();
  MovedInSetup setup;
  setup.setup(pick_device());
  setup.run();
}
