//===--- Fp16WithoutLossScalingScenario.cpp - Unscaled fp16 gradients -----===//
//
// The claim: gradients below fp16's smallest subnormal (2^-24) become zero,
// so their parameters stop learning, unless the loss is scaled up before
// backward. Gradients are computed in fp32 and rounded to fp16, with and
// without a scale of 2^16: a lower bound of what a backward pass in fp16
// flushes, since its intermediate values round as well.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

namespace torchlint::replay {
namespace {

/// A flushed fraction above this is reported as a wrong result.
constexpr double FlushThreshold = 1e-3;
constexpr double LossScale = 65536.0;

class Fp16WithoutLossScalingScenario : public Scenario {
public:
  const char *id() const override { return scenario::Fp16WithoutLossScaling; }
  bool needsCuda() const override { return false; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    c10::Device Device = Ctx.cudaUsable() ? Ctx.Device : c10::Device("cpu");
    if (!Ctx.cudaUsable())
      Ctx.assume("run on the CPU: " + Ctx.CudaUnusable);
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    auto Model = W.model(Device);
    torch::Tensor Loss =
        torch::mse_loss(Model->forward(W.input(Device)), W.target(Device));
    Loss.backward();
    std::vector<torch::Tensor> Gradients;
    for (const torch::Tensor &Parameter : Model->parameters())
      if (Parameter.grad().defined())
        Gradients.push_back(Parameter.grad());
    Fp16Flush Count = fp16Flush(Gradients, LossScale);
    int64_t Nonzero = Count.Nonzero, Flushed = Count.Flushed,
            FlushedScaled = Count.FlushedScaled;
    ScenarioOutcome Outcome;
    Outcome.RanOn = Device.str();
    double Fraction = Nonzero ? double(Flushed) / double(Nonzero) : 0.0;
    double ScaledFraction =
        Nonzero ? double(FlushedScaled) / double(Nonzero) : 0.0;
    Outcome.Measurements["nonzero_gradients"] = Nonzero;
    Outcome.Measurements["flushed_fraction"] = Fraction;
    Outcome.Measurements["flushed_fraction_scaled"] = ScaledFraction;
    Outcome.Measurements["loss_scale"] = LossScale;
    Outcome.Measurements["loss"] = Loss.item<double>();
    if (Fraction > FlushThreshold && ScaledFraction < Fraction) {
      Outcome.Result = Verdict::WrongResultConfirmed;
      Outcome.Reason = std::to_string(Fraction * 100) +
                       "% of the gradients flush to zero in fp16";
    } else if (Fraction > FlushThreshold) {
      Outcome.Result = Verdict::NoGain;
      Outcome.Reason = "gradients flush to zero in fp16 with and without "
                       "loss scaling alike";
    } else {
      Outcome.Result = Verdict::NoGain;
      Outcome.Reason = "no more than 0.1% of this workload's gradients flush "
                       "to zero in fp16";
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeFp16WithoutLossScalingScenario() {
  return std::make_unique<Fp16WithoutLossScalingScenario>();
}

} // namespace torchlint::replay
