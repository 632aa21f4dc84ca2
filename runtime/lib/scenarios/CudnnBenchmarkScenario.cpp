//===--- CudnnBenchmarkScenario.cpp - cuDNN's autotuner left off ----------===//
//
// The claim: with fixed input sizes, letting cuDNN time its convolution
// algorithms once (setBenchmarkCuDNN(true)) makes every later step faster.
// The one-time tuning falls in the warm-up runs, which are not timed. Each
// variant runs in a process of its own (Isolation.h).
//
//===----------------------------------------------------------------------===//

#include "Isolation.h"
#include "ScenarioRegistry.h"
#include "Workload.h"

#include <ATen/Context.h>

namespace torchlint::replay {
namespace {

class CudnnBenchmarkScenario : public Scenario {
public:
  const char *id() const override { return "cudnn-benchmark"; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    if (!W.layout().HasConvolution)
      return ScenarioOutcome::notRun(
          "the rebuilt module has no convolution for cuDNN to tune");
    Ctx.assume("each variant runs in a process of its own, one after the "
               "other: cuDNN keeps the algorithm it chose per shape whatever "
               "the benchmark flag said");
    TimingOptions Half = Ctx.Timing;
    Half.BudgetSeconds /= 2;
    ReplayContext Child = Ctx;
    Child.Timing = Half;
    ChildSamples Original = timeInChild(Child, id(), false, Recipe);
    ChildSamples Fixed = timeInChild(Child, id(), true, Recipe);
    ScenarioOutcome Outcome;
    Outcome.RanOn = Ctx.Device.str();
    Outcome.Measurements["same_result"] =
        sameResult(Original.Result, Fixed.Result,
                   toleranceFor(c10::ScalarType::Float), Outcome.Measurements);
    Outcome.Samples =
        TimedSamples{Original.Seconds, Fixed.Seconds, Original.Clock};
    Outcome.Ratio = speedUp(Original.Seconds, Fixed.Seconds);
    Outcome.Result = speedVerdict(*Outcome.Ratio);
    if (!Outcome.Measurements["same_result"].get<bool>()) {
      Outcome.Result = Verdict::NotRun;
      Outcome.Reason = "the fixed variant's result differs from the "
                       "original's beyond the tolerance; no speed verdict "
                       "is given";
    }
    return Outcome;
  }

  std::function<torch::Tensor()> isolatedVariant(const nlohmann::json &Recipe,
                                                 ReplayContext &Ctx,
                                                 bool Fixed) const override {
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    auto Model = W.model(Ctx.Device);
    auto Optimizer = std::make_shared<torch::optim::SGD>(
        Model->parameters(), torch::optim::SGDOptions(0.01));
    torch::Tensor Input = W.input(Ctx.Device), Target = W.target(Ctx.Device);
    at::globalContext().setBenchmarkCuDNN(Fixed);
    return [=]() mutable {
      return trainingStep(Model, *Optimizer, Input, Target);
    };
  }
};

} // namespace

std::unique_ptr<Scenario> makeCudnnBenchmarkScenario() {
  return std::make_unique<CudnnBenchmarkScenario>();
}

} // namespace torchlint::replay
