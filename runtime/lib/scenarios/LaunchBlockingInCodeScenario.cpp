//===--- LaunchBlockingInCodeScenario.cpp - Synchronous kernel launches ---===//
//
// The claim: with CUDA_LAUNCH_BLOCKING=1 every launch waits for its kernel,
// so a training step is slower than with the launches queued. CUDA reads the
// variable once, when it starts, so each variant runs in a process of its
// own (Isolation.h) that sets or clears it before touching CUDA.
//
//===----------------------------------------------------------------------===//

#include "Isolation.h"
#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <cstdlib>

namespace torchlint::replay {
namespace {

class LaunchBlockingInCodeScenario : public Scenario {
public:
  const char *id() const override { return scenario::LaunchBlockingInCode; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    // The children rebuild the workload; built here too, it puts the
    // defaults they choose among this replay's assumptions.
    Workload::fromRecipe(Recipe, Ctx);
    Ctx.assume("one training step (forward, mean squared error, backward, "
               "SGD step) is timed in a process with CUDA_LAUNCH_BLOCKING=1 "
               "and in one without it");
    return compareSpeedInChildren(Ctx, id(), Recipe);
  }

  std::function<torch::Tensor()> isolatedVariant(const nlohmann::json &Recipe,
                                                 ReplayContext &Ctx,
                                                 bool Fixed) const override {
    // Before anything here starts CUDA.
    if (Fixed)
      unsetenv("CUDA_LAUNCH_BLOCKING");
    else
      setenv("CUDA_LAUNCH_BLOCKING", "1", 1);
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    return [T = W.trainer(Ctx.Device)]() mutable {
      return trainingStep(T.Model, *T.Optimizer, T.Input, T.Target);
    };
  }
};

} // namespace

std::unique_ptr<Scenario> makeLaunchBlockingInCodeScenario() {
  return std::make_unique<LaunchBlockingInCodeScenario>();
}

} // namespace torchlint::replay
