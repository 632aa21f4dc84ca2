//===--- HalfModelTrainingScenario.cpp - Updates to fp16 weights ----------===//
//
// The claim: an optimizer stepping float16 weights loses the updates smaller
// than half the spacing of float16 numbers around each weight. One step's
// updates are computed in fp32 from the workload's gradients and applied to
// the weights rounded to fp16, and to the fp32 weights: the fraction of
// weights that do not change is what training with fp16 master weights
// throws away on that step.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

namespace torchlint::replay {
namespace {

/// A lost fraction above this is reported as a wrong result.
constexpr double LostThreshold = 1e-2;
constexpr double DefaultLearningRate = 1e-3;

class HalfModelTrainingScenario : public Scenario {
public:
  const char *id() const override { return scenario::HalfModelTraining; }
  bool needsCuda() const override { return false; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    c10::Device Device = Ctx.cudaUsable() ? Ctx.Device : c10::Device("cpu");
    if (!Ctx.cudaUsable())
      Ctx.assume("run on the CPU: " + Ctx.CudaUnusable);
    double Rate = DefaultLearningRate;
    if (Recipe.contains("learning_rate") &&
        Recipe["learning_rate"].is_number() &&
        Recipe["learning_rate"].get<double>() > 0)
      Rate = Recipe["learning_rate"].get<double>();
    else
      Ctx.assume("learning rate 1e-3 (not in the recipe)");
    // Adam's first step moves each weight by the learning rate, whatever
    // the gradient's size; SGD's by the learning rate times the gradient.
    std::string Optimizer = recipeString(Recipe, "optimizer", "");
    bool ByRate = Optimizer == "Adam" || Optimizer == "AdamW";
    Ctx.assume(ByRate ? "the update of a first Adam step: learning rate "
                        "times the gradient's sign"
                      : "the update of an SGD step: learning rate times the "
                        "gradient");

    Workload W = Workload::fromRecipe(Recipe, Ctx);
    auto Model = W.model(Device);
    torch::Tensor Loss =
        torch::mse_loss(Model->forward(W.input(Device)), W.target(Device));
    Loss.backward();
    std::vector<torch::Tensor> Weights, Updates;
    for (const torch::Tensor &Parameter : Model->parameters())
      if (Parameter.grad().defined()) {
        Weights.push_back(Parameter);
        Updates.push_back(ByRate ? Parameter.grad().sign() * Rate
                                 : Parameter.grad() * Rate);
      }
    LostUpdates Count = lostUpdates(Weights, Updates);

    ScenarioOutcome Outcome;
    Outcome.RanOn = Device.str();
    double Fp16 =
        Count.Nonzero ? double(Count.LostInFp16) / double(Count.Nonzero) : 0;
    double Fp32 =
        Count.Nonzero ? double(Count.LostInFp32) / double(Count.Nonzero) : 0;
    Outcome.Measurements["updated_weights"] = Count.Nonzero;
    Outcome.Measurements["lost_fraction_fp16"] = Fp16;
    Outcome.Measurements["lost_fraction_fp32"] = Fp32;
    Outcome.Measurements["learning_rate"] = Rate;
    if (Fp16 > LostThreshold && Fp16 > Fp32) {
      Outcome.Result = Verdict::WrongResultConfirmed;
      Outcome.Reason = std::to_string(Fp16 * 100) +
                       "% of one step's updates leave their float16 weight "
                       "unchanged (" +
                       std::to_string(Fp32 * 100) + "% in float32)";
    } else {
      Outcome.Result = Verdict::NoGain;
      Outcome.Reason = "no more than 1% of this workload's updates are lost "
                       "to float16 weights";
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeHalfModelTrainingScenario() {
  return std::make_unique<HalfModelTrainingScenario>();
}

} // namespace torchlint::replay
