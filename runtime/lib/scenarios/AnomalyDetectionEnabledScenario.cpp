//===--- AnomalyDetectionEnabledScenario.cpp - Training under anomaly mode ===//
//
// The claim: with autograd's anomaly detection on, each backward pass
// records a traceback per operation and checks its outputs for NaN, so the
// same training steps take longer. It holds on any device, so without a
// usable GPU this runs on the CPU.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <torch/csrc/autograd/anomaly_mode.h>

namespace torchlint::replay {
namespace {

constexpr int StepsPerRun = 10;

class AnomalyDetectionEnabledScenario : public Scenario {
public:
  const char *id() const override { return scenario::AnomalyDetectionEnabled; }
  bool needsCuda() const override { return false; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    c10::Device Device = Ctx.deviceOrCpu();
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    Ctx.assume(std::to_string(StepsPerRun) +
               " training steps per timed run, with anomaly detection on "
               "(the original) and off (the fix)");
    auto Variant = [&](bool Anomaly) {
      return [=, T = W.trainer(Device)]() mutable {
        bool Before = torch::autograd::AnomalyMode::is_enabled();
        torch::autograd::AnomalyMode::set_enabled(Anomaly);
        torch::Tensor Total = torch::zeros({}, T.Input.options());
        for (int Step = 0; Step < StepsPerRun; ++Step)
          Total +=
              trainingStep(T.Model, *T.Optimizer, T.Input, T.Target).detach();
        torch::autograd::AnomalyMode::set_enabled(Before);
        return Total;
      };
    };
    // Each variant trains its own copy of the model from the same weights,
    // so both sum the same losses.
    return compareSpeed(Ctx, Device, Variant(true), Variant(false),
                        toleranceFor(c10::ScalarType::Float));
  }
};

} // namespace

std::unique_ptr<Scenario> makeAnomalyDetectionEnabledScenario() {
  return std::make_unique<AnomalyDetectionEnabledScenario>();
}

} // namespace torchlint::replay
