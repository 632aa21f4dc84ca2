// The device flow on code that looks wrong and is not, and on mistakes whose
// obvious fix would be wrong: aliases, members written in place, datasets that
// place their own tensors, parameter-free modules, devices changed after
// their declaration, and fix-its that must be withheld.
#include <torch/torch.h>

#include <utility>

struct NetImpl : torch::nn::Module {
  NetImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                     : torch::Device(torch::kCPU);
}

// Correct: a copy of a module holder shares its module.
void holder_alias() {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  Net model;
  Net alias = model;
  model->to(device);
  alias->forward(torch::randn({3, 4}).to(device)); // expect: torch-eval-without-no-grad [warning] "'alias' runs forward for inference while autograd records"
}

// Correct: the batch's tensor is moved in place, through a reference too.
template <typename Loader>
void member_moved_in_place(Net &model, torch::Device device, Loader &loader) {
  torch::NoGradGuard no_grad;
  for (auto &batch : loader) {
    batch.data = batch.data.to(device); // expect: torch-pageable-copy [warning] "'batch.data' is copied to the GPU from pageable"
    model->forward(batch.data); // expect: torch-eval-without-no-grad [warning] "'model' runs forward for inference"
  }
}

void reference_alias() {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  torch::Tensor x = torch::randn({2, 4});
  torch::Tensor &view = x;
  view = view.to(device);
  model->forward(x); // expect: torch-eval-without-no-grad
}

// Correct: a dataset that puts its tensors on the device itself.
struct DeviceDataset : torch::data::datasets::Dataset<DeviceDataset> {
  explicit DeviceDataset(torch::Device device)
      : inputs_(torch::randn({100, 4}, device)),
        targets_(torch::randn({100, 2}, device)) {}
  torch::data::Example<> get(size_t i) override {
    return {inputs_[i], targets_[i]};
  }
  torch::optional<size_t> size() const override { return 100; }
  torch::Tensor inputs_, targets_;
};

void dataset_on_device() {
  torch::Device device = pick_device();
  torch::nn::Linear model(4, 2);
  model->to(device);
  auto loader = torch::data::make_data_loader( // expect: torch-dataloader-no-workers [note] "data loader has no worker threads (make_data_loader(dataset, batch_size)"
      DeviceDataset(device).map(torch::data::transforms::Stack<>()), torch::data::DataLoaderOptions(10).workers(2));
  for (auto &batch : *loader) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs Linear layers in"
    auto out = model->forward(batch.data);
    torch::mse_loss(out, batch.target).backward();
  }
}

// Correct: modules without parameters run wherever their inputs are.
struct SquaredErrorImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &t) {
    return (x - t).pow(2).mean();
  }
};
TORCH_MODULE(SquaredError);

void parameter_free_modules() {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  torch::nn::Linear model(4, 2);
  model->to(device);
  SquaredError criterion;
  torch::nn::LogSoftmax log_softmax(1);
  torch::nn::Dropout dropout(0.5);
  auto out = dropout(model->forward(torch::randn({8, 4}).to(device))); // expect: torch-eval-without-no-grad
  criterion->forward(log_softmax(out), torch::randn({8, 2}).to(device));
}

// No mismatch: a global device, upgraded before it is used. Which device
// this function sees depends on when it runs, so the input made on the CPU
// and moved is a note for the runs that choose the GPU.
torch::Device training_device(torch::kCPU);

void train_with_global() {
  torch::NoGradGuard no_grad;
  torch::nn::Linear model(4, 2);
  model->to(training_device);
  model->forward(torch::randn({8, 4}).to(training_device)); // expect: torch-eval-without-no-grad
}

// Correct: a trainer whose setup moves the model before any step.
struct Trainer {
  void setup(torch::Device device) {
    device_ = device;
    model_->to(device_);
  }
  torch::Tensor step(const torch::Tensor &x) {
    return model_->forward(x.to(device_));
  }
  Net model_;
  torch::Device device_{torch::kCPU};
};

// Correct: a template instantiated only where CUDA was checked.
torch::Tensor place(torch::Device device, const torch::Tensor &x) {
  return x.to(device);
}
template <int Index> torch::Tensor launch(const torch::Tensor &x) {
  return place(torch::Device(torch::kCUDA, Index), x);
}

// Correct: a flag that is only true when CUDA is there.
void conjunction_flag(int argc) {
  bool use_gpu = argc > 1 && torch::cuda::device_count() > 0;
  auto x = torch::randn({2});
  if (use_gpu)
    x = x.to(torch::kCUDA);
}

// A real mismatch whose fix-it would update a temporary: none is offered.
void accumulate_on_cpu() {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  torch::Tensor total = torch::zeros({2, 2});
  auto out = model->forward(torch::randn({2, 4}).to(device)); // expect: torch-eval-without-no-grad
  total += out; // expect: torch-device-mismatch [error] "'total' is on the CPU but 'out' is"
}

// A real mismatch whose device variable is out of scope: no fix-it.
void device_out_of_scope() {
  torch::NoGradGuard no_grad;
  Net model;
  if (torch::cuda::is_available()) {
    torch::Device gpu(torch::kCUDA);
    model->to(gpu);
  }
  model->forward(torch::randn({2, 4})); // expect: torch-device-mismatch, torch-eval-without-no-grad
}

// Hard-coded, but a constexpr cannot call is_available(): no fix-it.
constexpr torch::DeviceType kTrainingDeviceType = torch::kCPU; // expect: torch-hardcoded-cpu-device [warning] "module 'model' is placed on a hard-coded CPU device, so it runs on the" // expect-note: "choose the device at run time: 'torch::cuda::is_available()"

void constexpr_device() {
  torch::NoGradGuard no_grad;
  Net model;
  model->to(kTrainingDeviceType);
  model->forward(torch::randn({2, 4}).to(kTrainingDeviceType)); // expect: torch-eval-without-no-grad
}

// Hard-coded, but the loss target would stay behind: no fix-it.
void target_would_stay_behind() {
  torch::Device device(torch::kCPU); // expect: torch-hardcoded-cpu-device
  torch::nn::Linear model(4, 2);
  model->to(device);
  auto out = model->forward(torch::randn({8, 4}).to(device));
  torch::mse_loss(out, torch::randn({8, 2})).backward();
}

// An operation runs where its tensors are: one on the GPU puts the result
// there, whatever the operands the unit cannot see hold, and a tensor
// declared empty is on no device until something is assigned to it.
struct PolicyOutput {
  torch::Tensor log_probs;
};
PolicyOutput evaluate_policy(const torch::Tensor &observations);

void operands_the_unit_cannot_see(torch::Device device, Net &model,
                                  torch::optim::SGD &optimizer,
                                  const std::vector<torch::Tensor> &batches) {
  torch::nn::MSELoss criterion;
  float total = 0;
  for (const torch::Tensor &batch : batches) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs Linear layers in"
    torch::Tensor observations = batch.to(device); // expect: torch-pageable-copy [warning] "'batch' is copied to the GPU from pageable host memory on every iteration"
    torch::Tensor log_probs = evaluate_policy(observations).log_probs;
    torch::Tensor ratio = torch::exp(log_probs - observations);
    total += ratio.mean().item<float>(); // expect: torch-sync-in-loop [warning] "'ratio.mean().item()' waits for the GPU on every iteration"
    torch::Tensor kl;
    torch::Tensor value_loss;
    if (total > 0) {
      kl = log_probs.sub(observations).mean();
      value_loss = criterion(model->forward(log_probs), observations);
    }
    total += kl.item<float>(); // expect: torch-sync-in-loop [warning] "'kl.item()' waits for the GPU on every iteration"
    optimizer.zero_grad();
    value_loss.backward();
    optimizer.step();
    total += value_loss.item<float>(); // expect: torch-sync-in-loop [warning] "'value_loss.item()' waits for the GPU on every iteration"
  }
}

// Correct: a CPU operand says nothing of the others (a 0-dim CPU tensor
// joins GPU ones), and a tensor declared empty that a function of the
// program fills by reference, or a lambda assigns, may be anywhere.
void fill_features(torch::Tensor &features);

void operands_that_may_be_anywhere(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  model->to(device);
  torch::Tensor scale = torch::ones({});
  torch::Tensor filled;
  fill_features(filled);
  model->forward(filled * scale);
  torch::Tensor assigned;
  auto compute = [&] { assigned = torch::ones({2, 4}, device); };
  compute();
  model->forward(assigned * scale);
}

int main(int argc, char **) {
  holder_alias();
  torch::Device device = pick_device();
  Net model;
  model->to(device);
  auto loader = torch::data::make_data_loader( // expect: torch-dataloader-no-workers
      torch::data::datasets::MNIST("data").map(
          torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(64).workers(2));
  member_moved_in_place(model, device, *loader);
  reference_alias();
  dataset_on_device();
  parameter_free_modules();
  if (torch::cuda::is_available())
    training_device = torch::Device(torch::kCUDA);
  train_with_global();
  Trainer trainer;
  trainer.setup(device);
  trainer.step(torch::randn({2, 4}));
  if (torch::cuda::is_available())
    launch<0>(torch::randn({2}));
  conjunction_flag(argc);
  accumulate_on_cpu();
  device_out_of_scope();
  constexpr_device();
  target_would_stay_behind();
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  operands_the_unit_cannot_see(device, model, optimizer,
                               {torch::randn({2, 4})});
  operands_that_may_be_anywhere(model, device);
}
