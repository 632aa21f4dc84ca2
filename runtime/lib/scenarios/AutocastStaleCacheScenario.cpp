//===--- AutocastStaleCacheScenario.cpp - Casts cached across a step ------===//
//
// The claim: autocast caches the low-precision copies of the weights, and an
// optimizer step updates the weights in place, so without clear_cache() the
// next forward pass under autocast still uses the old weights. Measured:
// how far the post-step output lies from the one computed after
// clear_cache(), against how far the step moved the output at all.
// CUDA only: libtorch 1.13's CPU autocast was checked not to cache its casts
// (the output after an in-place update already reflects it), so a CPU run
// could not show the claim either way.
//
//===----------------------------------------------------------------------===//

#include "Autocast.h"
#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

namespace torchlint::replay {
namespace {

class AutocastStaleCacheScenario : public Scenario {
public:
  const char *id() const override { return scenario::AutocastStaleCache; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    c10::Device Device = Ctx.Device;
    c10::ScalarType Type =
        recipeString(Recipe, "dtype") == "bfloat16"
            ? c10::ScalarType::BFloat16
            : c10::ScalarType::Half; // CUDA autocast's default
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    torch::Tensor Input = W.input(Device), Target = W.target(Device);

    // Forward under autocast, step, forward again; ClearBetween is the fix.
    auto Run = [&](bool ClearBetween, torch::Tensor &Before) {
      auto Model = W.model(Device);
      torch::optim::SGD Optimizer(Model->parameters(),
                                  torch::optim::SGDOptions(0.5));
      setAutocast(Device.type(), true, Type);
      torch::Tensor Output = Model->forward(Input);
      Before = Output.detach().to(torch::kFloat);
      torch::Tensor Loss = torch::mse_loss(Output.to(torch::kFloat), Target);
      setAutocast(Device.type(), false);
      if (ClearBetween)
        clearAutocastCache();
      Loss.backward();
      Optimizer.step();
      setAutocast(Device.type(), true, Type);
      torch::Tensor After;
      {
        torch::NoGradGuard NoGrad;
        After = Model->forward(Input).to(torch::kFloat);
      }
      setAutocast(Device.type(), false);
      clearAutocastCache();
      return After;
    };
    torch::Tensor Before, Unused;
    torch::Tensor Stale = Run(false, Before);
    torch::Tensor Fresh = Run(true, Unused);
    double Divergence = (Stale - Fresh).abs().max().item<double>();
    double StepEffect = (Fresh - Before).abs().max().item<double>();
    ScenarioOutcome Outcome;
    Outcome.RanOn = Device.str();
    Outcome.Measurements["max_divergence"] = Divergence;
    Outcome.Measurements["max_step_effect"] = StepEffect;
    Outcome.Measurements["autocast_dtype"] =
        Type == c10::ScalarType::Half ? "float16" : "bfloat16";
    if (StepEffect > 0 && Divergence >= 0.5 * StepEffect) {
      Outcome.Result = Verdict::WrongResultConfirmed;
      Outcome.Reason =
          "after the optimizer step the output still differs by " +
          std::to_string(Divergence) +
          " from the one with clear_cache(); the step moved it by " +
          std::to_string(StepEffect);
    } else {
      Outcome.Result = Verdict::NoGain;
      Outcome.Reason = "the stale cache did not change this workload's output";
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeAutocastStaleCacheScenario() {
  return std::make_unique<AutocastStaleCacheScenario>();
}

} // namespace torchlint::replay
