//===--- ModuleNeverMovedScenario.cpp - A module left on the CPU ----------===//
//
// The claim: a module never moved off the CPU either fails, when its inputs
// are on the GPU, or does all of its work on the CPU, where the same step on
// the GPU is faster. With inputs on the GPU the replay runs the module as
// the program leaves it and expects a device error; otherwise it times the
// recipe's step (training or inference) with the module and its input on the
// CPU and on the GPU. For a tiny model the GPU may not be faster, and the
// verdict then says so.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <torch/torch.h>

namespace torchlint::replay {
namespace {

class ModuleNeverMovedScenario : public Scenario {
public:
  const char *id() const override { return scenario::ModuleNeverMoved; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    if (recipeString(Recipe, "inputs_on") == "gpu")
      return replayMismatch(Recipe, Ctx);
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    c10::Device Cpu(c10::DeviceType::CPU);
    if (recipeString(Recipe, "work") == "training") {
      Ctx.assume("one training step (forward, mean squared error, backward, "
                 "SGD step) is timed with the module and its input on the "
                 "CPU, as left, and on the device");
      auto Variant = [&W](const c10::Device &Device) {
        return [T = W.trainer(Device)]() mutable {
          trainingStep(T.Model, *T.Optimizer, T.Input, T.Target);
          return T.Model->parameters().front().detach().clone();
        };
      };
      return compareSpeed(Ctx, Ctx.Device, Variant(Cpu), Variant(Ctx.Device),
                          toleranceFor(c10::ScalarType::Float));
    }
    Ctx.assume("one forward pass without autograd is timed with the module "
               "and its input on the CPU, as left, and on the device");
    auto Variant = [&W](const c10::Device &Device) {
      return [Model = W.model(Device), Input = W.input(Device)]() mutable {
        torch::NoGradGuard NoGrad;
        return Model->forward(Input);
      };
    };
    return compareSpeed(Ctx, Ctx.Device, Variant(Cpu), Variant(Ctx.Device),
                        toleranceFor(c10::ScalarType::Float));
  }

private:
  static ScenarioOutcome replayMismatch(const nlohmann::json &Recipe,
                                        ReplayContext &Ctx) {
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    Ctx.assume("the input is on " + Ctx.Device.str() +
               " and the module on the CPU, as the program leaves them");
    ScenarioOutcome Outcome;
    Outcome.RanOn = Ctx.Device.str();
    torch::nn::Sequential Model = W.model(c10::Device(c10::DeviceType::CPU));
    torch::Tensor Input = W.input(Ctx.Device);
    std::string Raised;
    try {
      torch::NoGradGuard NoGrad;
      Model->forward(Input);
      synchronize(Ctx.Device);
    } catch (const std::exception &E) {
      std::string What = E.what();
      if (What.find("device") == std::string::npos)
        throw;
      Raised = firstLine(What);
    }
    Model->to(Ctx.Device); // the fix
    {
      torch::NoGradGuard NoGrad;
      Model->forward(Input);
      synchronize(Ctx.Device);
    }
    if (Raised.empty()) {
      Outcome.Result = Verdict::NotRun;
      Outcome.Reason =
          "the module ran without error with its input on " + Ctx.Device.str();
    } else {
      Outcome.Result = Verdict::CrashConfirmed;
      Outcome.Reason = "the module stayed on the CPU and raises: " + Raised;
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeModuleNeverMovedScenario() {
  return std::make_unique<ModuleNeverMovedScenario>();
}

} // namespace torchlint::replay
