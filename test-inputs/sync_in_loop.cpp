// torch-sync-in-loop: the host waits for the GPU on every step. Syncs in a
// logging interval, once per epoch, on CPU tensors or in CPU-only code are
// fine; a value that steers every step (a NaN abort) is a note, and the test
// that ends the loop (early stop, the end token of a decoder) is none: the
// next iteration cannot start without it.
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <vector>

using torch::data::DataLoaderOptions;
using torch::data::transforms::Stack;

struct Records : torch::data::datasets::Dataset<Records> {
  torch::data::Example<> get(size_t index) override {
    return {torch::rand({16}), torch::tensor(static_cast<int64_t>(index % 4))};
  }
  torch::optional<size_t> size() const override { return 1024; }
};

auto make_loader() {
  return torch::data::make_data_loader(Records().map(Stack<>()),
                                       DataLoaderOptions(64).workers(2));
}

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}

float train_step(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                 const torch::Tensor &data, const torch::Tensor &target) {
  optimizer.zero_grad();
  auto loss = torch::cross_entropy_loss(model(data), target);
  loss.backward();
  optimizer.step();
  return loss.item<float>(); // expect: torch-sync-in-loop [warning] "'loss.item()' waits for the GPU on every iteration"
}

void train(torch::nn::Linear &model, torch::Device device) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto loader = make_loader();
  float running_loss = 0;
  double total = 0;
  for (auto &batch : *loader) { // expect: torch-missing-mixed-precision [note] "this CUDA training loop runs Linear layers in"
    auto data = batch.data.to(device); // expect: torch-pageable-copy [warning] "'batch.data' is copied to the GPU from pageable"
    auto target = batch.target.to(device); // expect: torch-pageable-copy
    optimizer.zero_grad();
    auto output = model(data);
    auto loss = torch::cross_entropy_loss(output, target);
    loss.backward();
    optimizer.step();
    running_loss += loss.item<float>(); // expect: torch-sync-in-loop
    total += loss.item().toDouble(); // expect: torch-sync-in-loop
    std::cout << loss << "\n"; // expect: torch-sync-in-loop
    auto predictions = output.argmax(1).cpu(); // expect: torch-sync-in-loop
    auto host_output = output.to(torch::kCPU); // expect: torch-sync-in-loop
    torch::cuda::synchronize(); // expect: torch-sync-in-loop
    // The loop's own exit test: the next step cannot start without it.
    if (loss.item<float>() < 0.01f)
      break;
    if (std::isnan(loss.item<float>())) // expect: torch-sync-in-loop
      std::abort();
    (void)predictions;
    (void)host_output;
  }
  std::cout << running_loss + total << "\n";
}

void train_with_helper(torch::nn::Linear &model, torch::Device device) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto loader = make_loader();
  float sum = 0;
  for (auto &batch : *loader) // expect: torch-missing-mixed-precision
    sum += train_step(model, optimizer, batch.data.to(device), // expect: torch-pageable-copy
                      batch.target.to(device)); // expect: torch-pageable-copy
  std::cout << sum << "\n";
}

void evaluate(torch::nn::Linear &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  auto loader = make_loader();
  int64_t correct = 0;
  for (auto &batch : *loader) {
    auto output = model(batch.data.to(device)); // expect: torch-pageable-copy
    auto target = batch.target.to(device); // expect: torch-pageable-copy
    correct += output.argmax(1).eq(target).sum().item<int64_t>(); // expect: torch-sync-in-loop
  }
  std::cout << correct << "\n";
}

// A loop over the samples of each batch syncs once per sample, inside every
// step.
void per_sample_scores(torch::nn::Linear &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(device));
  std::vector<int64_t> hits(4, 0);
  for (int step = 0; step < 100; ++step) {
    auto predictions = model(x).argmax(1);
    for (int64_t i = 0; i < predictions.size(0); ++i)
      hits[predictions[i].item<int64_t>()]++; // expect: torch-sync-in-loop [warning] "'predictions[i].item()' waits for the GPU on every iteration"
  }
  std::cout << hits[0] << "\n";
}

void fixed_steps(torch::nn::Linear &model, torch::Device device) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(device));
  int step = 0;
  double total = 0;
  while (step < 100) { // expect: torch-missing-mixed-precision
    auto loss = model(x).pow(2).mean();
    loss.backward();
    optimizer.step();
    total += loss.item<double>(); // expect: torch-sync-in-loop
    TORCH_CHECK(!std::isnan(loss.item<float>()), "the loss is NaN"); // expect: torch-sync-in-loop
    ++step;
  }
  std::cout << total << "\n";
}

// The loss of a recurrent model's packed outputs: the packed data is where
// the outputs are, on the GPU (the lengths stay on the CPU).
void packed_outputs(torch::nn::Linear &model, torch::Device device) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto lengths = torch::tensor({5, 4, 2});
  double total = 0;
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
    auto outputs = model(torch::rand({3, 5, 16}, torch::TensorOptions().device(device)));
    auto packed = torch::nn::utils::rnn::pack_padded_sequence(outputs, lengths, /*batch_first=*/true);
    auto loss = packed.data().pow(2).mean();
    loss.backward();
    optimizer.step();
    total += loss.item<double>(); // expect: torch-sync-in-loop
  }
  std::cout << total << "\n";
}

// Fine.

void logging_interval(torch::nn::Linear &model, torch::Device device) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(device));
  const int log_every = 100;
  for (int step = 0; step < 1000; ++step) { // expect: torch-missing-mixed-precision
    auto loss = model(x).pow(2).mean();
    loss.backward();
    optimizer.step();
    if (step % 10 == 0)
      std::cout << loss.item<float>() << "\n";
    if (step % log_every == 0) {
      std::cout << "step " << step << ": " << loss << "\n";
    }
  }
}

void once_per_epoch(torch::nn::Linear &model, torch::Device device) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(device));
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto epoch_loss = torch::zeros({}, torch::TensorOptions().device(device));
    auto per_class = torch::zeros({4}, torch::TensorOptions().device(device));
    for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
      auto output = model(x);
      auto loss = output.pow(2).mean();
      loss.backward();
      optimizer.step();
      epoch_loss += loss.detach();
      per_class += output.detach().sum(0);
    }
    std::cout << "epoch " << epoch << ": " << epoch_loss.item<float>() << "\n";
    // Once per epoch too: a loop over the classes, outside the step loop.
    for (int64_t k = 0; k < per_class.size(0); ++k)
      std::cout << per_class[k].item<float>() << " ";
    torch::cuda::synchronize();
  }
}

void accumulated_on_the_device(torch::nn::Linear &model, torch::Device device) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(device));
  auto running = torch::zeros({}, torch::TensorOptions().device(device));
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
    auto loss = model(x).pow(2).mean();
    loss.backward();
    optimizer.step();
    running += loss.detach();
    auto kept = loss.to(device);
    (void)kept;
  }
  std::cout << running.item<float>() << "\n";
}

void cpu_tensors_in_a_gpu_loop(torch::nn::Linear &model, torch::Device device) {
  auto loader = make_loader();
  int64_t seen = 0;
  for (auto &batch : *loader) { // expect: torch-missing-mixed-precision
    model(batch.data.to(device)).sum().backward(); // expect: torch-pageable-copy
    seen += batch.target.size(0) + batch.target[0].item<int64_t>();
    auto labels = batch.target.cpu();
    (void)labels;
  }
  std::cout << seen << "\n";
}

void cpu_only_program() {
  torch::nn::Linear model(16, 4);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto x = torch::rand({64, 16});
  for (int step = 0; step < 100; ++step) {
    auto loss = model(x).pow(2).mean(); // expect: torch-module-never-moved
    loss.backward();
    optimizer.step();
    std::cout << loss.item<float>() << "\n";
  }
}

void not_a_training_loop(torch::nn::Linear &model, torch::Device device) {
  std::vector<torch::Tensor> outputs;
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(device));
  outputs.push_back(model(x).sum()); // expect: torch-eval-without-no-grad [warning] "'model' runs forward for inference while autograd records"
  for (const auto &output : outputs)
    std::cout << output.item<float>() << "\n";
}

void synced_after_the_loop(torch::nn::Linear &model, torch::Device device) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  auto x = torch::rand({64, 16}, torch::TensorOptions().device(device));
  torch::Tensor loss;
  for (int step = 0; step < 100; ++step) { // expect: torch-missing-mixed-precision
    loss = model(x).pow(2).mean();
    loss.backward();
    optimizer.step();
  }
  torch::cuda::synchronize();
  std::cout << loss.item<float>() << loss.cpu() << "\n";
}

// Input sizes change from step to step (variable-length clips): the
// autotuner would time every new shape, so torch-cudnn-benchmark-off stays
// quiet for this program.
void variable_length_clips(torch::Device device) {
  torch::nn::Conv1d conv(1, 8, 5);
  conv->to(device);
  for (int64_t length = 1000; length < 2000; length += 100) { // expect: torch-missing-mixed-precision
    auto clip = torch::randn({1, 1, length}, torch::TensorOptions().device(device));
    conv(clip).sum().backward();
  }
}

// Greedy decoding: whether to run the model again depends on the token it
// gave; the read of each token is the loop's exit test. The score added up
// in the same iteration is a second wait.
std::vector<int64_t> greedy_decode(torch::nn::Linear &model,
                                   torch::Device device) {
  torch::NoGradGuard no_grad;
  auto state = torch::zeros({1, 16}, torch::TensorOptions().device(device));
  std::vector<int64_t> tokens;
  float score = 0;
  for (int position = 0; position < 32; ++position) {
    auto logits = model(state);
    auto best = logits.max(1);
    score += std::get<0>(best).item<float>(); // expect: torch-sync-in-loop [warning] "'std::get<0>(best).item()' waits for the GPU on every iteration"
    int64_t token = std::get<1>(best).item<int64_t>();
    if (token == 0)
      break;
    tokens.push_back(token);
    state = state.roll(1, 1);
  }
  std::cout << score << "\n";
  return tokens;
}

int main() {
  torch::Device device = pick_device();
  torch::nn::Linear model(16, 4);
  model->to(device);
  train(model, device);
  train_with_helper(model, device);
  evaluate(model, device);
  per_sample_scores(model, device);
  fixed_steps(model, device);
  packed_outputs(model, device);
  logging_interval(model, device);
  once_per_epoch(model, device);
  accumulated_on_the_device(model, device);
  cpu_tensors_in_a_gpu_loop(model, device);
  cpu_only_program();
  not_a_training_loop(model, device);
  synced_after_the_loop(model, device);
  variable_length_clips(device);
  greedy_decode(model, device);
}
