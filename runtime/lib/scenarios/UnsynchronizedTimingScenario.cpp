//===--- UnsynchronizedTimingScenario.cpp - What an unsynchronized clock says //
//
// The claim: a host clock read right after GPU work is queued, with no wait
// for the GPU, measures the launch of the work, not the work. The replay
// times the recipe's forward pass (or that of the model --model names) both
// ways, as the program's interval
// reports it (clock, forward, clock) and as it is (clock, forward,
// synchronize, clock), with the device idle before each start. The verdict
// reads the ratio of the true time to the reported one: `confirmed` when
// the program's interval reports less than the work takes. Nothing gets
// faster: the fix makes the number right.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "UserModel.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <torch/torch.h>

#include <chrono>
#include <optional>

namespace torchlint::replay {
namespace {

double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

class UnsynchronizedTimingScenario : public Scenario {
public:
  const char *id() const override { return scenario::UnsynchronizedTiming; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    bool Backward = recipeString(Recipe, "work") == "backward";
    std::function<void()> Work;
    std::optional<LoadedUserModel> Scripted;
    std::string NotScripted;
    if (!Backward && !Ctx.ModelFile.empty()) {
      Scripted = loadUserModel(Recipe, Ctx, Ctx.Device, NotScripted);
      if (!Scripted)
        return ScenarioOutcome::notRun(NotScripted);
      Ctx.assume("the interval times one forward pass of that model, with "
                 "the GPU idle when it starts");
      Work = [&] {
        torch::NoGradGuard NoGrad;
        Scripted->Module.forward({Scripted->Input});
      };
    }
    torch::nn::Sequential Model{nullptr};
    torch::Tensor Input;
    if (!Work) {
      Workload W = Workload::fromRecipe(Recipe, Ctx);
      Model = W.model(Ctx.Device);
      Input = W.input(Ctx.Device);
      Ctx.assume(std::string("the interval times one ") +
                 (Backward ? "forward and backward pass" : "forward pass") +
                 " of the recipe's module, with the GPU idle when it starts");
      // A forward pass alone is timed as inference runs it, with no graph
      // recorded; a backward pass needs one.
      Work = [&] {
        std::optional<torch::NoGradGuard> NoGrad;
        if (!Backward)
          NoGrad.emplace();
        torch::Tensor Output = Model->forward(Input);
        if (Backward)
          Output.sum().backward();
      };
    }
    for (unsigned I = 0; I < Ctx.Timing.WarmUp + 1; ++I)
      Work();
    synchronize(Ctx.Device);

    std::vector<double> Reported, True;
    auto TimeAsReported = [&] {
      synchronize(Ctx.Device);
      auto Start = std::chrono::steady_clock::now();
      Work();
      Reported.push_back(secondsSince(Start));
      synchronize(Ctx.Device);
    };
    auto TimeTruly = [&] {
      synchronize(Ctx.Device);
      auto Start = std::chrono::steady_clock::now();
      Work();
      synchronize(Ctx.Device);
      True.push_back(secondsSince(Start));
    };
    // In alternation, each first every other round, so that drift of the
    // machine affects both alike.
    auto Budget = std::chrono::steady_clock::now();
    for (unsigned Round = 0; Reported.size() < Ctx.Timing.MinRepeats ||
                             (Reported.size() < Ctx.Timing.MaxRepeats &&
                              secondsSince(Budget) < Ctx.Timing.BudgetSeconds);
         ++Round) {
      if (Round % 2 == 0) {
        TimeAsReported();
        TimeTruly();
      } else {
        TimeTruly();
        TimeAsReported();
      }
    }

    ScenarioOutcome Outcome;
    Outcome.RanOn = Ctx.Device.str();
    // How many times longer the work takes than the program says: the
    // ratio of the true time to the reported one, read as a speed-up's.
    Outcome.Ratio = speedUp(True, Reported);
    Outcome.Result = speedVerdict(*Outcome.Ratio);
    // Original: the program as written (its interval); fixed: synchronized.
    Outcome.Samples = TimedSamples{Reported, True, "steady-clock"};
    Outcome.Measurements["reported_seconds_median"] = median(Reported);
    Outcome.Measurements["true_seconds_median"] = median(True);
    Outcome.Measurements["meaning"] =
        "original: the interval as the program measures it; fixed: with a "
        "synchronize before its end (the true time); the ratio is true over "
        "reported, how many times the program understates the work";
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeUnsynchronizedTimingScenario() {
  return std::make_unique<UnsynchronizedTimingScenario>();
}

} // namespace torchlint::replay
