// torch-pageable-copy: tensors copied to the GPU on every step from host
// memory that is not pinned. Pinned sources, copies made once, copies between
// devices or to the CPU, and tensors better created on the device are fine.
#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

using torch::data::DataLoaderOptions;
using torch::data::transforms::Stack;

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl() { fc = register_module("fc", torch::nn::Linear(16, 4)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Classifier);

struct Records : torch::data::datasets::Dataset<Records> {
  torch::data::Example<> get(size_t index) override {
    return {torch::rand({16}), torch::tensor(static_cast<int64_t>(index % 4))};
  }
  torch::optional<size_t> size() const override { return 1024; }
};

// Pins every example in get(), which the loader's worker threads run.
struct PinnedRecords : torch::data::datasets::Dataset<PinnedRecords> {
  torch::data::Example<> get(size_t index) override {
    return {torch::rand({16}).pin_memory(),
            torch::tensor(static_cast<int64_t>(index % 4)).pin_memory()};
  }
  torch::optional<size_t> size() const override { return 1024; }
};

auto make_loader() {
  return torch::data::make_data_loader(Records().map(Stack<>()),
                                       DataLoaderOptions(64).workers(2));
}

void read_features(torch::Tensor &features) { features.uniform_(); }

torch::Tensor to_device(const torch::Tensor &host, torch::Device device) {
  return host.to(device); // expect: torch-pageable-copy [warning] "'host' is copied to the GPU from pageable"
}

void train(Classifier &model, torch::Device device) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto loader = make_loader();
  auto device_input = torch::empty({64, 16}, torch::TensorOptions().device(device));
  auto staging = torch::empty({64, 16});
  std::vector<float> host_buffer(64 * 16, 0.5f);
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (auto &batch : *loader) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs Linear layers in"
      auto data = batch.data.to(device); // expect: torch-pageable-copy
      auto target = batch.target.to(device, /*non_blocking=*/true); // expect: torch-pageable-copy
      auto copy = batch.data.clone().to(device); // expect: torch-pageable-copy
      device_input.copy_(batch.data); // expect: torch-pageable-copy
      auto moved = to_device(batch.data, device);
      auto features = torch::empty({64, 16});
      read_features(features);
      auto extra = features.to(device); // expect: torch-pageable-copy
      staging.copy_(batch.data);
      auto refilled = staging.to(device); // expect: torch-pageable-copy
      auto wrapped = torch::from_blob(host_buffer.data(), {64, 16}).to(device); // expect: torch-pageable-copy
      auto contiguous = torch::from_blob(host_buffer.data(), {16, 64}).t().contiguous().to(device); // expect: torch-pageable-copy
      auto output = model->forward(data + copy + device_input + moved + extra +
                                   refilled + wrapped + contiguous);
      auto loss = torch::cross_entropy_loss(output, target);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
    }
  }
}

void train_on_cuda(Classifier &model) {
  if (!torch::cuda::is_available())
    return;
  auto loader = make_loader();
  for (auto &batch : *loader) { // expect: torch-missing-mixed-precision
    auto output = model->forward(batch.data.cuda()); // expect: torch-pageable-copy
    output.sum().backward();
  }
}

void evaluate(Classifier &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  auto loader = make_loader();
  int64_t step = 0;
  while (step < 100) {
    auto scores = torch::empty({64, 16});
    scores.normal_();
    model->forward(scores.to(device, /*non_blocking=*/false)); // expect: torch-pageable-copy
    ++step;
  }
}

// Fine.

void pinned_staging(Classifier &model, torch::Device device) {
  auto loader = make_loader();
  auto pinned = torch::empty({64, 16}, torch::TensorOptions().pinned_memory(true));
  auto pinned_options = torch::TensorOptions().dtype(torch::kFloat).pinned_memory(true);
  auto labels = torch::empty({64}, pinned_options);
  for (auto &batch : *loader) {
    pinned.copy_(batch.data);
    labels.copy_(batch.target);
    model->forward(pinned.to(device, /*non_blocking=*/true)); // expect: torch-eval-without-no-grad [warning] "'model' runs forward for inference while autograd records"
    auto target = labels.to(device, /*non_blocking=*/true);
  }
}

void pinned_on_the_path(Classifier &model, torch::Device device) {
  auto loader = make_loader();
  for (auto &batch : *loader) {
    auto page_locked = batch.data.pin_memory();
    model->forward(page_locked.to(device, /*non_blocking=*/true)); // expect: torch-eval-without-no-grad
  }
}

void pinned_by_the_dataset(Classifier &model, torch::Device device) {
  auto loader = torch::data::make_data_loader(PinnedRecords().map(Stack<>()),
                                              DataLoaderOptions(64).workers(2));
  for (auto &batch : *loader)
    model->forward(batch.data.to(device, /*non_blocking=*/true)); // expect: torch-eval-without-no-grad
}

void copied_once(Classifier &model, torch::Device device) {
  auto table = torch::empty({64, 16});
  read_features(table);
  auto on_device = table.to(device);
  for (int step = 0; step < 10; ++step)
    model->forward(on_device); // expect: torch-eval-without-no-grad
}

void between_devices(Classifier &model, torch::Device device) {
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(device));
  for (int step = 0; step < 10; ++step)
    model->forward(x.to(device)); // expect: torch-eval-without-no-grad
}

void back_to_the_host(Classifier &model, torch::Device device) {
  auto loader = make_loader();
  for (auto &batch : *loader) {
    auto host = batch.data.to(torch::kCPU);
    std::cout << host.sum().item<float>() << "\n";
  }
}

void host_only_device(Classifier &model) {
  torch::Device host("cpu");
  auto loader = make_loader();
  for (auto &batch : *loader)
    std::cout << batch.data.to(host).sum().item<float>() << "\n";
}

void better_created_on_the_device(Classifier &model, torch::Device device) {
  for (int step = 0; step < 10; ++step)
    model->forward(torch::randn({64, 16}).to(device)); // expect: torch-cpu-tensor-then-moved [warning] "tensor created on the CPU by 'torch", torch-eval-without-no-grad
}

void model_output_moved(Classifier &model, torch::Device device) {
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(device));
  for (int step = 0; step < 10; ++step)
    model->forward(model->forward(x).to(device).repeat({1, 4})); // expect: torch-eval-without-no-grad
}

// A device no caller in this unit sets: the caller chooses it at run time,
// and on the runs where it is a GPU every batch is a pageable copy.
void unknown_device(Classifier &model, torch::Device device) { // expect-note: "'device' is set by callers outside this unit"
  auto loader = make_loader();
  for (auto &batch : *loader)
    model->forward(batch.data.to(device)); // expect: torch-pageable-copy [warning] "on every iteration (when 'device' is a GPU), so", torch-eval-without-no-grad
}

// cuDNN's autotuner deliberately off (reproducible runs): no
// torch-cudnn-benchmark-off for this program.
void deterministic_convolutions(torch::Device device) {
  at::globalContext().setBenchmarkCuDNN(false);
  torch::nn::Conv2d conv(3, 8, 3);
  conv->to(device);
}

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Classifier model;
  model->to(device);
  train(model, device);
  train_on_cuda(model);
  evaluate(model, device);
  pinned_staging(model, device);
  pinned_on_the_path(model, device);
  pinned_by_the_dataset(model, device);
  copied_once(model, device);
  between_devices(model, device);
  back_to_the_host(model, device);
  host_only_device(model);
  better_created_on_the_device(model, device);
  model_output_moved(model, device);
  deterministic_convolutions(device);
}
