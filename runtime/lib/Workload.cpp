#include "Workload.h"

#include <sstream>

namespace torchlint::replay {

using nlohmann::json;

namespace {

constexpr uint64_t WeightSeed = 20261130;
constexpr uint64_t InputSeed = 7;

const json &inputOf(const json &Recipe) {
  static const json Null;
  for (const char *Key : {"input", "tensor"})
    if (Recipe.contains(Key) && Recipe[Key].is_object())
      return Recipe[Key];
  return Null;
}

} // namespace

Workload Workload::fromRecipe(const json &Recipe, ReplayContext &Ctx,
                              int64_t DefaultBatch) {
  Workload W;
  W.ModuleRecipe = Recipe.contains("module") ? Recipe["module"] : json();
  W.InputRecipe = inputOf(Recipe);
  torch::manual_seed(WeightSeed);
  W.Layout = buildModel(W.ModuleRecipe, W.InputRecipe, Ctx.Assumptions);
  std::vector<int64_t> Shape = knownShape(W.InputRecipe);
  if (Shape.size() >= 2) {
    W.BatchSize = Shape.front();
  } else if (W.InputRecipe.contains("batch_size") &&
             W.InputRecipe["batch_size"].is_number_integer()) {
    W.BatchSize = W.InputRecipe["batch_size"].get<int64_t>();
  } else {
    W.BatchSize = DefaultBatch;
    Ctx.assume("the batch size is not known; " + std::to_string(DefaultBatch) +
               " assumed");
  }
  if (W.InputRecipe.contains("dtype") && W.InputRecipe["dtype"].is_string() &&
      W.InputRecipe["dtype"] != "float32" &&
      W.Layout.InputType != c10::ScalarType::Long)
    Ctx.assume("the input is " + W.InputRecipe["dtype"].get<std::string>() +
               " in the program; the replay feeds float32, the type of the "
               "rebuilt module's parameters");
  torch::NoGradGuard NoGrad;
  torch::Tensor Output =
      W.model(c10::Device(c10::DeviceType::CPU))
          ->forward(W.input(c10::Device(c10::DeviceType::CPU)));
  W.OutputShape = Output.sizes().vec();
  return W;
}

torch::nn::Sequential Workload::model(const c10::Device &Device) const {
  std::vector<std::string> Ignored; // stated once, by fromRecipe
  torch::manual_seed(WeightSeed);
  torch::nn::Sequential Model =
      buildModel(ModuleRecipe, InputRecipe, Ignored).Model;
  Model->to(Device);
  return Model;
}

torch::Tensor Workload::input(const c10::Device &Device) const {
  std::vector<int64_t> Shape{BatchSize};
  Shape.insert(Shape.end(), Layout.SampleShape.begin(),
               Layout.SampleShape.end());
  torch::manual_seed(InputSeed);
  torch::Tensor Input =
      Layout.InputType == c10::ScalarType::Long
          ? torch::randint(Layout.IndexBound, Shape, torch::kLong)
          : torch::randn(Shape);
  return Input.to(Device);
}

torch::Tensor Workload::target(const c10::Device &Device) const {
  torch::manual_seed(InputSeed + 1);
  return torch::randn(OutputShape).to(Device);
}

Trainer Workload::trainer(const c10::Device &Device) const {
  Trainer T;
  T.Model = model(Device);
  T.Optimizer = std::make_shared<torch::optim::SGD>(
      T.Model->parameters(), torch::optim::SGDOptions(0.01));
  T.Input = input(Device);
  T.Target = target(Device);
  return T;
}

torch::Tensor trainingStep(torch::nn::Sequential &Model,
                           torch::optim::Optimizer &Optimizer,
                           const torch::Tensor &Input,
                           const torch::Tensor &Target) {
  Optimizer.zero_grad();
  torch::Tensor Loss =
      torch::mse_loss(Model->forward(Input).to(Target.scalar_type()), Target);
  Loss.backward();
  Optimizer.step();
  return Loss.detach();
}

Tolerance toleranceFor(c10::ScalarType Type) {
  switch (Type) {
  case c10::ScalarType::Half:
    return {1e-2, 1e-3};
  case c10::ScalarType::BFloat16:
    return {5e-2, 1e-2};
  case c10::ScalarType::Double:
    return {1e-9, 1e-12};
  default:
    // cuDNN may convolve in TF32 by default; 1e-3 relative covers it.
    return {1e-3, 1e-4};
  }
}

bool sameResult(const torch::Tensor &A, const torch::Tensor &B, Tolerance T,
                json &Measurements) {
  torch::Tensor Left = A.detach().to(torch::kCPU).to(torch::kDouble);
  torch::Tensor Right = B.detach().to(torch::kCPU).to(torch::kDouble);
  Measurements["tolerance"] = {{"relative", T.Relative},
                               {"absolute", T.Absolute}};
  if (Left.sizes() != Right.sizes()) {
    std::ostringstream Shapes;
    Shapes << Left.sizes() << " against " << Right.sizes();
    Measurements["shape_mismatch"] = Shapes.str();
    return false;
  }
  Measurements["max_abs_difference"] =
      Left.numel() ? (Left - Right).abs().max().item<double>() : 0.0;
  return torch::allclose(Left, Right, T.Relative, T.Absolute);
}

ScenarioOutcome compareSpeed(ReplayContext &Ctx, const c10::Device &Device,
                             const std::function<torch::Tensor()> &Original,
                             const std::function<torch::Tensor()> &Fixed,
                             Tolerance T) {
  // The same random stream for both, should the work draw numbers.
  torch::manual_seed(InputSeed + 2);
  torch::Tensor OriginalResult = Original();
  torch::manual_seed(InputSeed + 2);
  torch::Tensor FixedResult = Fixed();
  return judgeSpeed(
      timeAlternately(
          Device, [&] { Original(); }, [&] { Fixed(); }, Ctx.Timing),
      OriginalResult, FixedResult, T, Device);
}

ScenarioOutcome judgeSpeed(TimedSamples Samples,
                           const torch::Tensor &OriginalResult,
                           const torch::Tensor &FixedResult, Tolerance T,
                           const c10::Device &RanOn) {
  ScenarioOutcome Outcome;
  Outcome.RanOn = RanOn.str();
  Outcome.Measurements["same_result"] =
      sameResult(OriginalResult, FixedResult, T, Outcome.Measurements);
  Outcome.Ratio = speedUp(Samples.Original, Samples.Fixed);
  Outcome.Samples = std::move(Samples);
  Outcome.Result = speedVerdict(*Outcome.Ratio);
  if (!Outcome.Measurements["same_result"].get<bool>()) {
    // Faster at computing something else is no evidence for the fix.
    Outcome.Result = Verdict::NotRun;
    Outcome.Reason = "the fixed variant's result differs from the original's "
                     "beyond the tolerance; no speed verdict is given";
  }
  return Outcome;
}

Fp16Flush fp16Flush(const std::vector<torch::Tensor> &Gradients, double Scale) {
  Fp16Flush Count;
  for (const torch::Tensor &Gradient : Gradients) {
    torch::Tensor Grad = Gradient.detach().to(torch::kFloat);
    torch::Tensor Live = Grad != 0;
    Count.Nonzero += Live.sum().item<int64_t>();
    Count.Flushed +=
        (Live & (Grad.to(torch::kHalf) == 0)).sum().item<int64_t>();
    Count.FlushedScaled +=
        (Live & ((Grad * Scale).to(torch::kHalf) == 0)).sum().item<int64_t>();
  }
  return Count;
}

LostUpdates lostUpdates(const std::vector<torch::Tensor> &Weights,
                        const std::vector<torch::Tensor> &Updates) {
  LostUpdates Count;
  for (size_t I = 0; I < Weights.size() && I < Updates.size(); ++I) {
    torch::Tensor Weight = Weights[I].detach().to(torch::kFloat);
    torch::Tensor Update = Updates[I].detach().to(torch::kFloat);
    torch::Tensor Live = Update != 0;
    torch::Tensor Half = Weight.to(torch::kHalf);
    Count.Nonzero += Live.sum().item<int64_t>();
    // The step is computed in fp32 and stored back in the weight's dtype.
    Count.LostInFp16 +=
        (Live & ((Half.to(torch::kFloat) - Update).to(torch::kHalf) == Half))
            .sum()
            .item<int64_t>();
    Count.LostInFp32 +=
        (Live & ((Weight - Update) == Weight)).sum().item<int64_t>();
  }
  return Count;
}

} // namespace torchlint::replay
