//===--- PageableCopyScenario.cpp - Copies from pageable memory -----------===//
//
// The claim: batches staged in pinned memory and copied without blocking
// reach the GPU sooner, and the copy overlaps the previous step's compute.
// Both variants stage every batch afresh each step, so the cost of (cached)
// pinned allocation is included.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

namespace torchlint::replay {
namespace {

constexpr int StepsPerRun = 10;

class PageableCopyScenario : public Scenario {
public:
  const char *id() const override { return scenario::PageableCopy; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    int64_t Copies = recipeInt(Recipe, "copies_per_step", 1);
    if (Copies < 1)
      Copies = 1;
    Ctx.assume(std::to_string(StepsPerRun) +
               " training steps per timed run, each copying " +
               std::to_string(Copies) + " batch(es) of the input's shape");
    // What the program's data source produces each step, in host memory.
    torch::Tensor Source = W.input(torch::kCPU);
    auto Variant = [&](bool Pinned) {
      c10::Device Device = Ctx.Device;
      return [=, T = W.trainer(Ctx.Device)]() mutable {
        torch::Tensor FirstLoss;
        for (int Step = 0; Step < StepsPerRun; ++Step) {
          torch::Tensor Input;
          for (int64_t Copy = 0; Copy < Copies; ++Copy) {
            torch::Tensor Staged = torch::empty(
                Source.sizes(), Source.options().pinned_memory(Pinned));
            Staged.copy_(Source);
            torch::Tensor OnDevice = Staged.to(Device, /*non_blocking=*/Pinned);
            if (Copy == 0)
              Input = OnDevice;
          }
          torch::Tensor Loss =
              trainingStep(T.Model, *T.Optimizer, Input, T.Target);
          if (Step == 0)
            FirstLoss = Loss;
        }
        return FirstLoss;
      };
    };
    return compareSpeed(Ctx, Ctx.Device, Variant(false), Variant(true),
                        toleranceFor(c10::ScalarType::Float));
  }
};

} // namespace

std::unique_ptr<Scenario> makePageableCopyScenario() {
  return std::make_unique<PageableCopyScenario>();
}

} // namespace torchlint::replay
