//===--- DeviceMismatchScenario.cpp - The model on the GPU, its input not -===//
//
// The claim: the forward pass raises because the input stays on the CPU
// while the module is on the GPU, and moving the input fixes it.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

namespace torchlint::replay {
namespace {

class DeviceMismatchScenario : public Scenario {
public:
  const char *id() const override { return scenario::DeviceMismatch; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    torch::nn::Sequential Model = W.model(Ctx.Device);
    torch::Tensor HostInput = W.input(torch::kCPU);
    ScenarioOutcome Outcome;
    Outcome.RanOn = Ctx.Device.str();
    std::string Raised;
    try {
      Model->forward(HostInput);
      synchronize(Ctx.Device);
    } catch (const std::exception &E) {
      std::string What = E.what();
      // Only the error the rule predicts counts; anything else (out of
      // memory) is not evidence and goes up as not-run.
      if (What.find("device") == std::string::npos)
        throw;
      Raised = firstLine(What);
    }
    torch::Tensor Fixed = Model->forward(HostInput.to(Ctx.Device));
    synchronize(Ctx.Device);
    Outcome.Measurements["fixed_output_shape"] = Fixed.sizes().vec();
    if (Raised.empty()) {
      Outcome.Result = Verdict::NotRun;
      Outcome.Reason = "the mismatch did not reproduce: the original ran "
                       "without error on this device";
    } else {
      Outcome.Result = Verdict::CrashConfirmed;
      Outcome.Reason = "the original raises: " + Raised;
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeDeviceMismatchScenario() {
  return std::make_unique<DeviceMismatchScenario>();
}

} // namespace torchlint::replay
