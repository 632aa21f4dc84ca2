//===--- SyncInLoopScenario.cpp - A host sync on every training step ------===//
//
// The claim: reading a value back each step (.item()) makes the CPU wait for
// the GPU, so the next step cannot be queued while this one runs; keeping
// the running value on the device and reading it once avoids that.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

namespace torchlint::replay {
namespace {

constexpr int StepsPerRun = 20;

class SyncInLoopScenario : public Scenario {
public:
  const char *id() const override { return scenario::SyncInLoop; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    Ctx.assume(std::to_string(StepsPerRun) +
               " training steps per timed run; the fix sums the loss on the "
               "device and reads it once after them");
    if (recipeBool(Recipe, "decides_control_flow", false))
      Ctx.assume("the value steers control flow in the program; deferring "
                 "it, as the replay does, may need the logic changed");
    auto Variant = [&](bool SyncEachStep) {
      return [=, T = W.trainer(Ctx.Device)]() mutable {
        double HostTotal = 0;
        torch::Tensor DeviceTotal =
            torch::zeros({}, T.Input.options().dtype(torch::kFloat));
        for (int Step = 0; Step < StepsPerRun; ++Step) {
          torch::Tensor Loss =
              trainingStep(T.Model, *T.Optimizer, T.Input, T.Target);
          if (SyncEachStep)
            HostTotal += Loss.item<double>();
          else
            DeviceTotal += Loss;
        }
        if (!SyncEachStep)
          HostTotal = DeviceTotal.item<double>();
        return torch::tensor(HostTotal, torch::kDouble);
      };
    };
    return compareSpeed(Ctx, Ctx.Device, Variant(true), Variant(false),
                        toleranceFor(c10::ScalarType::Float));
  }
};

} // namespace

std::unique_ptr<Scenario> makeSyncInLoopScenario() {
  return std::make_unique<SyncInLoopScenario>();
}

} // namespace torchlint::replay
