//===--- CpuTensorThenMovedScenario.cpp - Created on the CPU, then moved --===//
//
// The claim: creating a tensor directly on the GPU skips a host allocation,
// a fill on the CPU and a copy.
//
//===----------------------------------------------------------------------===//

#include "ModuleBuilder.h"
#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

namespace torchlint::replay {
namespace {

/// The factory the program calls, with the given options.
torch::Tensor create(const std::string &Function, c10::IntArrayRef Shape,
                     const torch::TensorOptions &Options) {
  if (Function == "zeros")
    return torch::zeros(Shape, Options);
  if (Function == "ones")
    return torch::ones(Shape, Options);
  if (Function == "empty")
    return torch::empty(Shape, Options);
  if (Function == "rand")
    return torch::rand(Shape, Options);
  if (Function == "full")
    return torch::full(Shape, 1, Options);
  return torch::randn(Shape, Options);
}

class CpuTensorThenMovedScenario : public Scenario {
public:
  const char *id() const override { return scenario::CpuTensorThenMoved; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    nlohmann::json Tensor =
        (Recipe.contains("tensor") ? Recipe["tensor"] : nlohmann::json());
    std::vector<int64_t> Shape = knownShape(Tensor);
    if (Shape.empty()) {
      Shape = {64, 1024};
      Ctx.assume("the tensor's shape is not known; [64, 1024] assumed");
    }
    c10::ScalarType Type = scalarTypeNamed(
        nlohmann::json(recipeString(Tensor, "dtype")), c10::ScalarType::Float);
    std::string Function = recipeString(Tensor, "function", "randn");
    bool Random = Function != "zeros" && Function != "ones" &&
                  Function != "full" && Function != "empty";
    if (Random)
      Ctx.assume("'" + Function +
                 "' draws different numbers on each device; "
                 "only shapes and dtypes are compared");
    c10::Device Device = Ctx.Device;
    auto Compared = [Random](torch::Tensor T) {
      return Random ? torch::tensor(T.sizes().vec()) : T;
    };
    auto Options = torch::TensorOptions().dtype(Type);
    return compareSpeed(
        Ctx, Device,
        [=] { return Compared(create(Function, Shape, Options).to(Device)); },
        [=] {
          return Compared(create(Function, Shape, Options.device(Device)));
        },
        toleranceFor(Type));
  }
};

} // namespace

std::unique_ptr<Scenario> makeCpuTensorThenMovedScenario() {
  return std::make_unique<CpuTensorThenMovedScenario>();
}

} // namespace torchlint::replay
