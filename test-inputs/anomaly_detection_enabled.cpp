// torch-anomaly-detection-enabled: autograd's anomaly detection on while the
// model trains (AnomalyMode::set_enabled(true) before a training loop, or a
// DetectAnomalyGuard whose scope holds one): every backward pass records a
// traceback per operation and checks for NaN. Reported where it is switched
// on, with a note at the training loop's backward(). Not reported in code
// only debug builds compile, when a run-time value decides, when it is
// switched off again before training, or around one backward() for
// debugging.
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>

#define TRAINING_DEBUG 1
#define MY_DEBUG

struct Options {
  bool debug = false;
  int epochs = 2;
};

torch::Tensor lossOf(torch::nn::Linear &model, const torch::Tensor &x) {
  return model(x).pow(2).mean();
}

// One training step; the loops that call it train.
void step(torch::nn::Linear &model, torch::optim::SGD &optimizer,
          const torch::Tensor &x) {
  optimizer.zero_grad();
  lossOf(model, x).backward();
  optimizer.step();
}

void trainEpoch(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                const torch::Tensor &x) {
  for (int batch = 0; batch < 4; ++batch)
    step(model, optimizer, x);
}

void switchedOnBeforeTheLoop(torch::nn::Linear &model,
                             torch::optim::SGD &optimizer,
                             const torch::Tensor &x) {
  torch::autograd::AnomalyMode::set_enabled(true); // expect: torch-anomaly-detection-enabled [warning] "autograd anomaly detection is on while the model trains, so every backward pass records a traceback per operation and checks for NaN"
  for (int i = 0; i < 10; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = lossOf(model, x);
    loss.backward(); // expect-note: "the training loop's backward pass runs here"
    optimizer.step();
  }
}

void guardAroundTheLoop(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                        const torch::Tensor &x) {
  torch::autograd::DetectAnomalyGuard detect_anomaly; // expect: torch-anomaly-detection-enabled
  for (int i = 0; i < 10; ++i) {
    optimizer.zero_grad();
    lossOf(model, x).backward();
    optimizer.step();
  }
}

void guardOnEveryStep(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                      const torch::Tensor &x) {
  for (int i = 0; i < 10; ++i) {
    torch::autograd::DetectAnomalyGuard detect_anomaly; // expect: torch-anomaly-detection-enabled
    optimizer.zero_grad();
    lossOf(model, x).backward();
    optimizer.step();
  }
}

// Switched on in a set-up function; its caller trains afterwards.
void setUpAutograd() {
  torch::autograd::AnomalyMode::set_enabled(true); // expect: torch-anomaly-detection-enabled
}

void trainAfterSetUp(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                     const torch::Tensor &x) {
  setUpAutograd();
  for (int epoch = 0; epoch < 3; ++epoch)
    trainEpoch(model, optimizer, x);
}

void withoutNanChecks(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                      const torch::Tensor &x) {
  torch::autograd::AnomalyMode::set_enabled(true, /*check_nan=*/false); // expect: torch-anomaly-detection-enabled
  int steps = 0;
  while (steps++ < 100)
    step(model, optimizer, x);
}

void guardAroundEpochs(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                       const torch::Tensor &x, const Options &options) {
  torch::autograd::DetectAnomalyGuard guard(/*check_nan=*/false); // expect: torch-anomaly-detection-enabled
  for (int epoch = 0; epoch < options.epochs; ++epoch)
    trainEpoch(model, optimizer, x);
}

void trainWholeRun(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                   const torch::Tensor &x) {
  for (int epoch = 0; epoch < 3; ++epoch)
    trainEpoch(model, optimizer, x);
}

void switchedOnBeforeACall(torch::nn::Linear &model,
                           torch::optim::SGD &optimizer,
                           const torch::Tensor &x) {
  torch::autograd::AnomalyMode::set_enabled(true); // expect: torch-anomaly-detection-enabled
  trainWholeRun(model, optimizer, x);
}

void functionalBackward(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                        const torch::Tensor &x) {
  using torch::autograd::AnomalyMode;
  AnomalyMode::set_enabled(true); // expect: torch-anomaly-detection-enabled
  int i = 0;
  do {
    optimizer.zero_grad();
    torch::autograd::backward({lossOf(model, x)});
    optimizer.step();
  } while (++i < 10);
}

void guardInALambda(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                    const torch::Tensor &x) {
  auto train = [&] {
    torch::autograd::DetectAnomalyGuard detect_anomaly; // expect: torch-anomaly-detection-enabled
    for (int i = 0; i < 10; ++i)
      step(model, optimizer, x);
  };
  train();
}

void rangeForLoop(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                  const std::vector<torch::Tensor> &batches) {
  torch::autograd::AnomalyMode::set_enabled(true); // expect: torch-anomaly-detection-enabled
  for (const torch::Tensor &batch : batches) {
    optimizer.zero_grad();
    lossOf(model, batch).backward();
    optimizer.step();
  }
}

// Only debug builds compile these.
void debugBuildsOnly(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                     const torch::Tensor &x) {
#if TRAINING_DEBUG
  torch::autograd::AnomalyMode::set_enabled(true);
#endif
#ifdef MY_DEBUG
  torch::autograd::DetectAnomalyGuard detect_anomaly;
#endif
#if defined(MY_DEBUG) && TRAINING_DEBUG
  torch::autograd::AnomalyMode::set_enabled(true, true);
#else
  std::cout << "release\n";
#endif
#ifndef NDEBUG
  torch::autograd::AnomalyMode::set_enabled(true);
#endif
#ifdef NDEBUG
  std::cout << "release build\n";
#else
  torch::autograd::DetectAnomalyGuard in_debug;
#endif
  trainWholeRun(model, optimizer, x);
}

// A run-time choice.
void chosenAtRunTime(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                     const torch::Tensor &x, const Options &options) {
  torch::autograd::AnomalyMode::set_enabled(options.debug);
  if (options.debug)
    torch::autograd::AnomalyMode::set_enabled(true);
  if (std::getenv("DETECT_ANOMALY")) {
    torch::autograd::DetectAnomalyGuard detect_anomaly;
    trainWholeRun(model, optimizer, x);
  }
  trainWholeRun(model, optimizer, x);
}

// Switched off before training, or on only after it.
void switchedOffFirst(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                      const torch::Tensor &x) {
  torch::autograd::AnomalyMode::set_enabled(true);
  lossOf(model, x).backward();
  torch::autograd::AnomalyMode::set_enabled(false);
  trainWholeRun(model, optimizer, x);
  torch::autograd::AnomalyMode::set_enabled(true);
  std::cout << lossOf(model, x) << '\n';
}

// One backward under the guard, to find where a NaN comes from; the
// training after its scope runs without it.
void oneBackwardToDebug(torch::nn::Linear &model, torch::optim::SGD &optimizer,
                        const torch::Tensor &x) {
  {
    torch::autograd::DetectAnomalyGuard detect_anomaly;
    lossOf(model, x).backward();
  }
  trainWholeRun(model, optimizer, x);
}

// Evaluation only: no backward pass to slow down.
void evaluateOnly(torch::nn::Linear &model, const torch::Tensor &x) {
  torch::NoGradGuard no_grad;
  torch::autograd::AnomalyMode::set_enabled(true);
  for (int i = 0; i < 10; ++i)
    std::cout << model(x) << '\n';
}

int main(int argc, char **argv) {
  Options options;
  options.debug = argc > 1 && std::string(argv[1]) == "--debug";
  torch::nn::Linear model(4, 1);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  torch::Tensor x = torch::randn({8, 4});
  switchedOnBeforeTheLoop(model, optimizer, x);
  guardAroundTheLoop(model, optimizer, x);
  guardOnEveryStep(model, optimizer, x);
  trainAfterSetUp(model, optimizer, x);
  withoutNanChecks(model, optimizer, x);
  guardAroundEpochs(model, optimizer, x, options);
  switchedOnBeforeACall(model, optimizer, x);
  functionalBackward(model, optimizer, x);
  guardInALambda(model, optimizer, x);
  rangeForLoop(model, optimizer, {x, x});
  debugBuildsOnly(model, optimizer, x);
  chosenAtRunTime(model, optimizer, x, options);
  oneBackwardToDebug(model, optimizer, x);
  switchedOffFirst(model, optimizer, x);
  torch::autograd::AnomalyMode::set_enabled(false);
  evaluateOnly(model, x);
}
