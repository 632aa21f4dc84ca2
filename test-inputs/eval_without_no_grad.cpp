// torch-eval-without-no-grad: a module run for evaluation or inference while
// autograd records, or run, in any mode, for a result that no backward pass
// can use. Guards (also behind a macro, also in every caller), training,
// gradients wanted in evaluation mode (adversarial inputs, frozen batch norm)
// and results handed to a caller or a function that may train are fine.
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <iostream>
#include <vector>

#define PROJECT_NO_GRAD() torch::NoGradGuard project_no_grad_guard

struct NetImpl : torch::nn::Module {
  NetImpl()
      : conv(register_module("conv", torch::nn::Conv2d(1, 8, 3))),
        fc(register_module("fc", torch::nn::Linear(5408, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv(x));
    return fc(x.flatten(1));
  }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

torch::Tensor images() { return torch::rand({32, 1, 28, 28}); }
torch::Tensor labels() { return torch::randint(10, {32}); }

// --- positives -------------------------------------------------------------

// Samples drawn in a training loop and only saved and printed: no backward
// pass can use their graph, whatever the loop trains.
void sample_while_training(Net &model, torch::optim::Optimizer &optimizer) { // expect-note: "runs backward() or an optimizer step, but never on what this call computes"
  for (int step = 1; step <= 1000; ++step) {
    optimizer.zero_grad();
    torch::cross_entropy_loss(model->forward(images()), labels()).backward();
    optimizer.step();
    if (step % 100 == 0) {
      torch::Tensor samples = model->forward(images()); // expect: torch-eval-without-no-grad [warning] "'model' runs forward for inference while autograd records"
      torch::save((samples + 1.0) / 2.0, "samples.pt");
      std::cout << samples.argmax(1) << "\n";
    }
  }
}

// A result dropped: batch norm updates its statistics without the graph.
void recalibrate_batch_norm(Net &model) {
  model->train();
  for (int step = 0; step < 10; ++step)
    model->forward(images()); // expect: torch-eval-without-no-grad [warning] "'model' runs forward for inference while autograd records"
}

void evaluate(Net &model) {
  model->eval();
  int64_t correct = 0;
  for (int batch = 0; batch < 100; ++batch) {
    auto output = model->forward(images()); // expect: torch-eval-without-no-grad [warning] "'model' runs forward in evaluation mode while autograd"
    correct += output.argmax(1).eq(labels()).sum().item<int64_t>();
  }
  std::cout << "accuracy " << correct / 3200.0 << "\n";
}

void train_then_validate(Net &model, torch::optim::Optimizer &optimizer) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    model->train();
    for (int step = 0; step < 100; ++step) {
      optimizer.zero_grad();
      auto loss = torch::cross_entropy_loss(model(images()), labels());
      loss.backward();
      optimizer.step();
    }
    model->eval();
    double total = 0;
    for (int step = 0; step < 10; ++step) {
      auto output = model(images()); // expect: torch-eval-without-no-grad
      total += torch::cross_entropy_loss(output, labels()).item<double>();
    }
    std::cout << "validation loss " << total / 10 << "\n";
  }
}

void predict(Net &model) {
  auto scores = model->forward(images()); // expect: torch-eval-without-no-grad
  std::cout << scores.argmax(1) << "\n";
}

void train_off_is_evaluation(Net &model) {
  model->train(false);
  std::cout << model(images()).sizes() << "\n"; // expect: torch-eval-without-no-grad
}

void guard_ended_before_the_call(Net &model) {
  {
    torch::NoGradGuard warmup_guard;
    model->forward(images());
  }
  auto output = model->forward(images()); // expect: torch-eval-without-no-grad
  std::cout << output.mean() << "\n";
}

void guard_declared_after_the_call(Net &model) {
  auto output = model->forward(images()); // expect: torch-eval-without-no-grad
  torch::NoGradGuard too_late;
  std::cout << output.sum() << "\n";
}

struct Evaluator {
  Net model;
  double run() {
    model->eval();
    double total = 0;
    for (int batch = 0; batch < 20; ++batch)
      total += model(images()).mean().item<double>(); // expect: torch-eval-without-no-grad
    return total / 20;
  }
};

struct Digits : torch::data::datasets::Dataset<Digits> {
  torch::data::Example<> get(size_t index) override {
    return {torch::rand({1, 28, 28}), torch::tensor(static_cast<int64_t>(index % 10))};
  }
  torch::optional<size_t> size() const override { return 512; }
};

void test_over_a_loader(Net &model) {
  auto loader = torch::data::make_data_loader(
      Digits().map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(64).workers(2));
  model->eval();
  int64_t correct = 0;
  for (auto &batch : *loader) {
    auto output = model->forward(batch.data); // expect: torch-eval-without-no-grad
    correct += output.argmax(1).eq(batch.target).sum().item<int64_t>();
  }
  std::cout << correct << "\n";
}

void score(Net &model) {
  model->eval();
  auto output = model->forward(images()); // expect: torch-eval-without-no-grad
  std::cout << output.max() << "\n";
}

void score_everywhere(Net &model) {
  {
    torch::NoGradGuard no_grad;
    score(model);
  }
  score(model); // this call records
}

void evaluation_in_a_lambda(Net &model) {
  auto run_eval = [&] {
    model->eval();
    auto output = model->forward(images()); // expect: torch-eval-without-no-grad
    std::cout << output.mean() << "\n";
  };
  run_eval();
}

void sequential_inference() {
  torch::nn::Sequential head(torch::nn::Linear(16, 32), torch::nn::ReLU(),
                             torch::nn::Linear(32, 2));
  head->eval();
  auto logits = head->forward(torch::rand({8, 16})); // expect: torch-eval-without-no-grad
  auto more = head->forward(torch::rand({8, 16}));
  std::cout << logits.sizes() << more.sizes() << "\n";
}

// The training branch is not on the evaluation call's paths.
void evaluate_or_train(Net &model, torch::optim::Optimizer &optimizer,
                       bool evaluate) {
  if (evaluate) {
    model->eval();
    auto output = model(images()); // expect: torch-eval-without-no-grad
    std::cout << output.sizes() << "\n";
  } else {
    auto loss = torch::nll_loss(model(images()), labels());
    loss.backward();
    optimizer.step();
  }
}

// Modes are a module's own: another module switched to training does not
// make this evaluation a training step.
void evaluate_beside_another_module(Net &model, Net &other) {
  model->eval();
  other->train();
  std::cout << model(images()).sum() << "\n"; // expect: torch-eval-without-no-grad
}

// Tested after training, in the same function: nothing on the test loop's
// paths needs a graph, whatever ran before it.
void train_then_test(Net &model, torch::optim::Optimizer &optimizer) { // expect-note: "runs no backward() or optimizer step after this call"
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model->forward(images()), labels());
    loss.backward();
    optimizer.step();
  }
  int64_t correct = 0;
  for (int batch = 0; batch < 10; ++batch) {
    auto predicted = model->forward(images()).argmax(1); // expect: torch-eval-without-no-grad
    correct += predicted.eq(labels()).sum().item<int64_t>();
  }
  std::cout << correct << "\n";
}

// --- negatives -------------------------------------------------------------

void guarded_evaluation(Net &model) {
  torch::NoGradGuard no_grad;
  model->eval();
  for (int batch = 0; batch < 10; ++batch)
    std::cout << model->forward(images()).argmax(1) << "\n";
}

void inference_mode(Net &model) {
  c10::InferenceMode guard;
  std::cout << model->forward(images()).sum() << "\n";
}

void grad_mode_set_off(Net &model) {
  torch::GradMode::set_enabled(false);
  std::cout << model->forward(images()).sum() << "\n";
}

void auto_grad_mode_off(Net &model) {
  torch::AutoGradMode disable_grad(false);
  std::cout << model->forward(images()).sum() << "\n";
}

void guard_behind_a_macro(Net &model) {
  PROJECT_NO_GRAD();
  model->eval();
  std::cout << model->forward(images()).sum() << "\n";
}

void guard_in_the_loop(Net &model) {
  model->eval();
  for (int batch = 0; batch < 10; ++batch) {
    torch::NoGradGuard no_grad;
    std::cout << model->forward(images()).sum() << "\n";
  }
}

void inference_mode_disabled(Net &model) {
  c10::InferenceMode guard(false);
  std::cout << model->forward(images()).sum() << "\n";
}

void grad_mode_enabled_on_purpose(Net &model) {
  torch::AutoGradMode enable_grad(true);
  std::cout << model->forward(images()).sum() << "\n";
}

void grad_mode_switched_back_on(Net &model, bool keep_graph) {
  torch::GradMode::set_enabled(false);
  auto warmup = model->forward(images());
  torch::GradMode::set_enabled(keep_graph);
  std::cout << warmup.sum() + model->forward(images()).sum() << "\n";
}

// set_enabled() switches the thread's mode, not a block's.
void grad_mode_set_off_in_a_block(Net &model, bool verbose) {
  {
    torch::GradMode::set_enabled(false);
    if (verbose)
      std::cout << "recording off\n";
  }
  std::cout << model->forward(images()).sum() << "\n";
}

// Off unless the caller wants the graph: decided at run time, on purpose.
void grad_mode_off_unless_asked(Net &model, bool keep_graph) {
  if (!keep_graph)
    torch::GradMode::set_enabled(false);
  std::cout << model->forward(images()).sum() << "\n";
}

// A part of the model trains (its batch norm or dropout, say): the graph
// may be wanted.
void log_output(const torch::Tensor &output);

void part_of_the_model_trains(Net &model) {
  model->eval();
  model->fc->train();
  log_output(model(images()).sum());
}

// Training mode on one of the paths: the graph may be wanted.
void mode_chosen_by_a_flag(Net &model, bool training) {
  if (training)
    model->train();
  else
    model->eval();
  auto output = model(images());
  log_output(output);
}

void report(Net &model) {
  std::cout << model->forward(images()).argmax(1) << "\n";
}

void report_twice(Net &model) {
  torch::NoGradGuard no_grad;
  report(model);
  report(model);
}

void training_step(Net &model, torch::optim::Optimizer &optimizer) {
  optimizer.zero_grad();
  auto loss = torch::cross_entropy_loss(model->forward(images()), labels());
  loss.backward();
  optimizer.step();
}

torch::Tensor compute_loss(Net &model) {
  return torch::cross_entropy_loss(model->forward(images()), labels());
}

void adversarial_example(Net &model) {
  model->eval();
  auto input = images().requires_grad_(true);
  auto loss = torch::cross_entropy_loss(model->forward(input), labels());
  loss.backward();
  auto perturbed = input + 0.03 * input.grad().sign();
  std::cout << perturbed.sizes() << "\n";
}

void fine_tune_with_frozen_batch_norm(Net &model,
                                      torch::optim::Optimizer &optimizer) {
  model->eval();
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model->forward(images()), labels());
    loss.backward();
    optimizer.step();
  }
}

// Results that reach a backward pass: through variables, sums, in-place
// copies, containers and the program's own functions.
torch::Tensor penalty(const torch::Tensor &output) {
  return output.pow(2).mean();
}

void results_that_train(Net &model, torch::optim::Optimizer &optimizer) {
  for (int step = 0; step < 100; ++step) {
    std::vector<torch::Tensor> outputs;
    outputs.push_back(model->forward(images()));
    torch::Tensor total = torch::zeros({});
    torch::Tensor logits = model->forward(images());
    total += logits.sum();
    torch::Tensor staged = torch::zeros({32, 10});
    staged.copy_(model->forward(images()));
    torch::Tensor reused;
    reused = model->forward(images());
    auto [largest, classes] = torch::max(model->forward(images()), 1);
    optimizer.zero_grad();
    (torch::stack(outputs).sum() + total + staged.sum() + reused.sum() +
     penalty(model->forward(images())) + largest.sum())
        .backward();
    optimizer.step();
  }
}

void activation_only() {
  torch::nn::ReLU relu;
  std::cout << relu(torch::rand({4})) << "\n";
}

class Trainer {
public:
  explicit Trainer(Net model) : model_(std::move(model)) {}
  void forward_pass() { output_ = model_->forward(images()); }
  void backward_pass() {
    torch::cross_entropy_loss(output_, labels()).backward();
  }

private:
  Net model_;
  torch::Tensor output_;
};

void forward_into(Net &model, torch::Tensor &out) {
  out = model->forward(images());
}

void handed_out(Net &model) {
  std::cout << model->forward(images()).sum() << "\n";
}

int main() {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  evaluate(model);
  train_then_validate(model, optimizer);
  predict(model);
  train_off_is_evaluation(model);
  guard_ended_before_the_call(model);
  guard_declared_after_the_call(model);
  Evaluator{model}.run();
  test_over_a_loader(model);
  score_everywhere(model);
  evaluation_in_a_lambda(model);
  sequential_inference();
  Net other;
  evaluate_beside_another_module(model, other);
  part_of_the_model_trains(model);
  train_then_test(model, optimizer);

  guarded_evaluation(model);
  inference_mode(model);
  grad_mode_set_off(model);
  auto_grad_mode_off(model);
  guard_behind_a_macro(model);
  guard_in_the_loop(model);
  inference_mode_disabled(model);
  grad_mode_enabled_on_purpose(model);
  grad_mode_switched_back_on(model, true);
  grad_mode_set_off_in_a_block(model, true);
  grad_mode_off_unless_asked(model, false);
  report_twice(model);
  training_step(model, optimizer);
  sample_while_training(model, optimizer);
  results_that_train(model, optimizer);
  compute_loss(model).backward();
  adversarial_example(model);
  fine_tune_with_frozen_batch_norm(model, optimizer);
  recalibrate_batch_norm(model);
  activation_only();
  Trainer trainer(model);
  trainer.forward_pass();
  trainer.backward_pass();
  torch::Tensor out;
  forward_into(model, out);
  std::function<void(Net &)> callback = handed_out;
  callback(model);
}
