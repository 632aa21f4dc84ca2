//===--- Workload.h - A model, its inputs and a training step ---*- C++ -*-===//
//
// What most scenarios run: the recipe's module with inputs of the recipe's
// shape, built identically (same weights, same values) for each variant and
// device, so that the original and the fixed variant compute the same thing
// and their results can be compared.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_WORKLOAD_H
#define TORCHLINT_RUNTIME_WORKLOAD_H

#include "ModuleBuilder.h"
#include "Scenario.h"

#include <torch/torch.h>

#include <functional>

namespace torchlint::replay {

/// What a training-step variant holds: a fresh model on a device with its
/// SGD optimizer (learning rate 0.01), and the workload's input and target.
struct Trainer {
  torch::nn::Sequential Model;
  std::shared_ptr<torch::optim::SGD> Optimizer;
  torch::Tensor Input;
  torch::Tensor Target;
};

class Workload {
public:
  /// The recipe's "module", and its input: "input" or "tensor". The batch
  /// size is the input's first dimension, else the recipe's "batch_size",
  /// else DefaultBatch (an assumption).
  static Workload fromRecipe(const nlohmann::json &Recipe, ReplayContext &Ctx,
                             int64_t DefaultBatch = 32);

  /// A fresh copy of the model on Device; every call has the same weights.
  torch::nn::Sequential model(const c10::Device &Device) const;
  /// The same input values on every call.
  torch::Tensor input(const c10::Device &Device) const;
  /// A regression target shaped like the model's output.
  torch::Tensor target(const c10::Device &Device) const;
  /// model(), input() and target() on Device, with an optimizer.
  Trainer trainer(const c10::Device &Device) const;

  int64_t batchSize() const { return BatchSize; }
  const BuiltModel &layout() const { return Layout; }

private:
  nlohmann::json ModuleRecipe;
  nlohmann::json InputRecipe;
  BuiltModel Layout;
  int64_t BatchSize = 32;
  std::vector<int64_t> OutputShape;
};

/// One optimisation step (forward, mean squared error, backward, step);
/// returns the loss, still on the device.
torch::Tensor trainingStep(torch::nn::Sequential &Model,
                           torch::optim::Optimizer &Optimizer,
                           const torch::Tensor &Input,
                           const torch::Tensor &Target);

struct Tolerance {
  double Relative;
  double Absolute;
};

/// How closely two computations of the same thing in Type must agree: a
/// GPU and a CPU, or two algorithms, round differently.
Tolerance toleranceFor(c10::ScalarType Type);

/// Whether A and B agree within T; records the largest difference and the
/// tolerance in Measurements.
bool sameResult(const torch::Tensor &A, const torch::Tensor &B, Tolerance T,
                nlohmann::json &Measurements);

/// The outcome of timed samples whose variants computed OriginalResult and
/// FixedResult: the speed verdict, or none when the results differ.
ScenarioOutcome judgeSpeed(TimedSamples Samples,
                           const torch::Tensor &OriginalResult,
                           const torch::Tensor &FixedResult, Tolerance T,
                           const c10::Device &RanOn);

/// Runs each variant once and compares their results, then times them on
/// Device and reads the verdict from the speed-up's interval. A variant
/// returns the tensor its run computed.
ScenarioOutcome compareSpeed(ReplayContext &Ctx, const c10::Device &Device,
                             const std::function<torch::Tensor()> &Original,
                             const std::function<torch::Tensor()> &Fixed,
                             Tolerance T);

/// Of the nonzero values among Gradients, how many round to zero in fp16,
/// as they are and multiplied by Scale first.
struct Fp16Flush {
  int64_t Nonzero = 0;
  int64_t Flushed = 0;
  int64_t FlushedScaled = 0;
};
Fp16Flush fp16Flush(const std::vector<torch::Tensor> &Gradients, double Scale);

/// Of the nonzero values among Updates, how many leave their weight
/// unchanged when subtracted from it: with the weights rounded to fp16, and
/// in fp32.
struct LostUpdates {
  int64_t Nonzero = 0;
  int64_t LostInFp16 = 0;
  int64_t LostInFp32 = 0;
};
LostUpdates lostUpdates(const std::vector<torch::Tensor> &Weights,
                        const std::vector<torch::Tensor> &Updates);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_WORKLOAD_H
