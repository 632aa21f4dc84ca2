//===--- EvalWithoutNoGradScenario.cpp - Inference that records a graph ---===//
//
// The claim: without NoGradGuard every forward pass records the autograd
// graph and keeps its activations alive, which costs time and memory. It
// holds on any device, so without a usable GPU this runs on the CPU. With
// --model the program's own TorchScript model runs instead of the rebuilt
// one (a deployment's model is rarely visible in its source).
//
//===----------------------------------------------------------------------===//

#include "PeakMemory.h"
#include "ScenarioRegistry.h"
#include "UserModel.h"
#include "Workload.h"
#include "common/Scenarios.h"

namespace torchlint::replay {
namespace {

class EvalWithoutNoGradScenario : public Scenario {
public:
  const char *id() const override { return scenario::EvalWithoutNoGrad; }
  bool needsCuda() const override { return false; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    c10::Device Device = Ctx.deviceOrCpu();
    int64_t Batches = 20;
    if (Recipe.contains("batches") && Recipe["batches"].is_number_integer())
      Batches = std::max<int64_t>(1, Recipe["batches"].get<int64_t>());
    else
      Ctx.assume("the number of batches is not known; 20 per timed run");
    std::function<torch::Tensor()> Forward;
    if (!Ctx.ModelFile.empty()) {
      std::string NotLoaded;
      std::optional<LoadedUserModel> Scripted =
          loadUserModel(Recipe, Ctx, Device, NotLoaded);
      if (!Scripted)
        return ScenarioOutcome::notRun(NotLoaded);
      Forward = [Module = Scripted->Module, Input = Scripted->Input]() mutable {
        return firstTensorOf(Module.forward({Input}));
      };
    } else {
      // The rebuilt module only where no model was named: a TorchScript
      // model's layers are in its file, not in the recipe.
      Workload W = Workload::fromRecipe(Recipe, Ctx);
      auto Model = W.model(Device);
      Model->eval();
      Forward = [Model, Input = W.input(Device)]() mutable {
        return Model->forward(Input);
      };
    }
    auto Variant = [=](bool NoGrad) {
      return [=]() mutable {
        std::optional<torch::NoGradGuard> Guard;
        if (NoGrad)
          Guard.emplace();
        // Predictions are kept, as an evaluation that collects them does.
        std::vector<torch::Tensor> Predictions;
        for (int64_t I = 0; I < Batches; ++I)
          Predictions.push_back(Forward());
        return torch::stack(Predictions).sum(0).detach();
      };
    };
    auto Original = Variant(false), Fixed = Variant(true);
    ScenarioOutcome Outcome = compareSpeed(
        Ctx, Device, Original, Fixed, toleranceFor(c10::ScalarType::Float));
    std::optional<int64_t> OriginalPeak =
        peakAllocatedBytes(Device, [&] { Original(); });
    std::optional<int64_t> FixedPeak =
        peakAllocatedBytes(Device, [&] { Fixed(); });
    if (OriginalPeak && FixedPeak)
      Outcome.Measurements["peak_allocated_bytes"] = {
          {"original", *OriginalPeak}, {"fixed", *FixedPeak}};
    else
      Outcome.Measurements["peak_allocated_bytes"] =
          "not measured: needs a CUDA device and a CUDA build of libtorch";
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeEvalWithoutNoGradScenario() {
  return std::make_unique<EvalWithoutNoGradScenario>();
}

} // namespace torchlint::replay
