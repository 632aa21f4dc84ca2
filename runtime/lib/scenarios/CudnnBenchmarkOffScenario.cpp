//===--- CudnnBenchmarkOffScenario.cpp - cuDNN's autotuner left off -------===//
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
#include "common/Scenarios.h"

#include <ATen/Context.h>

namespace torchlint::replay {
namespace {

class CudnnBenchmarkOffScenario : public Scenario {
public:
  const char *id() const override { return scenario::CudnnBenchmarkOff; }
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
    return compareSpeedInChildren(Ctx, id(), Recipe);
  }

  std::function<torch::Tensor()> isolatedVariant(const nlohmann::json &Recipe,
                                                 ReplayContext &Ctx,
                                                 bool Fixed) const override {
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    at::globalContext().setBenchmarkCuDNN(Fixed);
    return [T = W.trainer(Ctx.Device)]() mutable {
      return trainingStep(T.Model, *T.Optimizer, T.Input, T.Target);
    };
  }
};

} // namespace

std::unique_ptr<Scenario> makeCudnnBenchmarkOffScenario() {
  return std::make_unique<CudnnBenchmarkOffScenario>();
}

} // namespace torchlint::replay
