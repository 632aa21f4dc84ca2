//===--- WidenBeforeCopyScenario.cpp - Data widened before its copy -------===//
//
// The claim: narrow host data (8-bit pixels) copied to the GPU as it is and
// converted there reaches the model sooner than the same data converted on
// the host and copied wide. Each variant takes the same host tensor to the
// same values on the device, once per step; the step's other work is the
// same in both and is left out.
//
//===----------------------------------------------------------------------===//

#include "ModuleBuilder.h"
#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <torch/torch.h>

namespace torchlint::replay {
namespace {

/// A 720p RGB frame, the size a camera loop copies.
const std::vector<int64_t> DefaultShape = {720, 1280, 3};

class WidenBeforeCopyScenario : public Scenario {
public:
  const char *id() const override { return scenario::WidenBeforeCopy; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    c10::ScalarType From = scalarTypeNamed(
        Recipe.value("from", nlohmann::json()), c10::ScalarType::Byte);
    c10::ScalarType To = scalarTypeNamed(Recipe.value("to", nlohmann::json()),
                                         c10::ScalarType::Float);
    if (c10::elementSize(To) <= c10::elementSize(From))
      return ScenarioOutcome::notRun("the recipe's conversion from " +
                                     std::string(c10::toString(From)) + " to " +
                                     c10::toString(To) + " does not widen");
    std::vector<int64_t> Shape = knownShape(
        nlohmann::json{{"shape", Recipe.value("shape", nlohmann::json())}});
    if (Shape.empty()) {
      Shape = DefaultShape;
      Ctx.assume("a 720x1280 RGB frame stands in for the copied tensor, "
                 "whose shape is not in the recipe");
    }
    Ctx.assume("each timed run copies and converts the tensor once, as one "
               "step does; the model's work, the same in both variants, is "
               "left out");
    torch::Tensor Host =
        torch::randint(0, 100, Shape, torch::TensorOptions().dtype(From));
    c10::Device Device = Ctx.Device;
    auto WidenThenCopy = [=] { return Host.to(To).div(255).to(Device); };
    auto CopyThenWiden = [=] { return Host.to(Device).to(To).div(255); };
    return compareSpeed(Ctx, Device, WidenThenCopy, CopyThenWiden,
                        toleranceFor(To));
  }
};

} // namespace

std::unique_ptr<Scenario> makeWidenBeforeCopyScenario() {
  return std::make_unique<WidenBeforeCopyScenario>();
}

} // namespace torchlint::replay
