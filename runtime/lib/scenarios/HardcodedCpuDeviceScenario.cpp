//===--- HardcodedCpuDeviceScenario.cpp - A device hard-coded to the CPU --===//
//
// The claim: training on the GPU is faster than on the hard-coded CPU. For a
// tiny model it may not be, and the verdict then says so.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

namespace torchlint::replay {
namespace {

class HardcodedCpuDeviceScenario : public Scenario {
public:
  const char *id() const override { return scenario::HardcodedCpuDevice; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    c10::Device Cpu(c10::DeviceType::CPU);
    Ctx.assume("one training step (forward, mean squared error, backward, "
               "SGD step) is timed on each device");
    auto Variant = [&W](const c10::Device &Device) {
      return [T = W.trainer(Device)]() mutable {
        trainingStep(T.Model, *T.Optimizer, T.Input, T.Target);
        // The result compared: the updated weights of the first layer.
        return T.Model->parameters().front().detach().clone();
      };
    };
    // The CPU side's timing is synchronous; timing on the GPU device also
    // waits for the CPU variant, which has no queued work.
    return compareSpeed(Ctx, Ctx.Device, Variant(Cpu), Variant(Ctx.Device),
                        toleranceFor(c10::ScalarType::Float));
  }
};

} // namespace

std::unique_ptr<Scenario> makeHardcodedCpuDeviceScenario() {
  return std::make_unique<HardcodedCpuDeviceScenario>();
}

} // namespace torchlint::replay
