//===--- SetupInLoopScenario.cpp - Setting up on every iteration ----------===//
//
// The claim: a TorchScript model loaded, a module built or an optimizer
// built inside the loop that runs the model repeats work that the loop's
// result does not need; done once before the loop, each iteration is
// cheaper. It holds on any device, so without a usable GPU this runs on the
// CPU.
//
// The analyzed program's model file is never loaded (loading a TorchScript
// file runs its code): the model the user names with --model is, else a
// stand-in TorchScript model of the input's width, made and saved here.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "UserModel.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <torch/script.h>

#include <atomic>
#include <filesystem>
#include <unistd.h>

namespace torchlint::replay {
namespace {

/// A TorchScript two-layer perceptron over inputs of Width features, saved
/// to a file that is removed with this object.
class StandInModel {
public:
  explicit StandInModel(int64_t Width) {
    static std::atomic<unsigned> Counter{0};
    Path = (std::filesystem::temp_directory_path() /
            ("torchlint-replay-" + std::to_string(getpid()) + "-" +
             std::to_string(Counter++) + ".pt"))
               .string();
    torch::jit::Module Module("StandIn");
    torch::manual_seed(7);
    Module.register_parameter("w1", torch::randn({Width, 256}) / 16, false);
    Module.register_parameter("w2", torch::randn({256, 10}) / 16, false);
    Module.define(R"(
def forward(self, x):
    return torch.relu(x.flatten(1).matmul(self.w1)).matmul(self.w2)
)");
    Module.save(Path);
  }
  ~StandInModel() {
    std::error_code Ignored;
    std::filesystem::remove(Path, Ignored);
  }
  StandInModel(const StandInModel &) = delete;
  StandInModel &operator=(const StandInModel &) = delete;
  const std::string &path() const { return Path; }

private:
  std::string Path;
};

class SetupInLoopScenario : public Scenario {
public:
  const char *id() const override { return scenario::SetupInLoop; }
  bool needsCuda() const override { return false; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    c10::Device Device = Ctx.deviceOrCpu();
    std::string Setup = recipeString(Recipe, "setup", "");
    if (Setup != "load" && Setup != "module" && Setup != "optimizer")
      return ScenarioOutcome::notRun(
          "the recipe does not say what is set up (load, module or "
          "optimizer)");
    const int64_t Iterations = 10;
    Ctx.assume("10 iterations of the loop per timed run");
    // The user's model comes with its own input; the recipe's workload
    // would only stand in for what is not known.
    if (Setup == "load" && !Ctx.ModelFile.empty())
      return replayUserLoad(Recipe, Iterations, Device, Ctx);
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    torch::Tensor Input = W.input(Device);
    if (Setup == "load")
      return replayLoad(Input, Iterations, Device, Ctx);
    if (Setup == "module")
      return replayModule(W, Input, Iterations, Device, Ctx);
    return replayOptimizer(W, Input, Iterations, Device, Ctx);
  }

private:
  /// Loads per iteration or once, timed with the loads and forward passes
  /// of the model the user named.
  static ScenarioOutcome
  timeLoads(const std::string &Path, const torch::Tensor &Input,
            int64_t Iterations, const c10::Device &Device, ReplayContext &Ctx) {
    auto Run = [&, Input](bool LoadOnce) {
      return [&, Input, LoadOnce]() {
        std::optional<torch::jit::Module> Loaded;
        if (LoadOnce)
          Loaded = torch::jit::load(Path, Device);
        torch::NoGradGuard NoGrad;
        torch::Tensor Sum = torch::zeros({}, Input.options());
        for (int64_t I = 0; I < Iterations; ++I) {
          torch::jit::Module Module =
              LoadOnce ? *Loaded : torch::jit::load(Path, Device);
          Sum = Sum + Module.forward({Input}).toTensor().sum();
        }
        return Sum;
      };
    };
    return compareSpeed(Ctx, Device, Run(false), Run(true),
                        toleranceFor(c10::ScalarType::Float));
  }

  static ScenarioOutcome replayUserLoad(const nlohmann::json &Recipe,
                                        int64_t Iterations,
                                        const c10::Device &Device,
                                        ReplayContext &Ctx) {
    std::string Reason;
    std::optional<LoadedUserModel> Model =
        loadUserModel(Recipe, Ctx, Device, Reason);
    if (!Model)
      return ScenarioOutcome::notRun(Reason);
    return timeLoads(Ctx.ModelFile, Model->Input, Iterations, Device, Ctx);
  }

  static ScenarioOutcome replayLoad(const torch::Tensor &Input,
                                    int64_t Iterations,
                                    const c10::Device &Device,
                                    ReplayContext &Ctx) {
    torch::Tensor Flat = Input.to(torch::kFloat).flatten(1);
    Ctx.assume("the program's model file is not loaded: a TorchScript "
               "two-layer perceptron over " +
               std::to_string(Flat.size(1)) +
               " input features, saved by the replay, stands in for it (give "
               "--model FILE to replay with the program's model)");
    StandInModel Model(Flat.size(1));
    return timeLoads(Model.path(), Flat, Iterations, Device, Ctx);
  }

  static ScenarioOutcome replayModule(const Workload &W,
                                      const torch::Tensor &Input,
                                      int64_t Iterations,
                                      const c10::Device &Device,
                                      ReplayContext &Ctx) {
    auto Run = [&, Input](bool BuildOnce) {
      return [&, Input, BuildOnce]() {
        std::optional<torch::nn::Sequential> Built;
        if (BuildOnce)
          Built = W.model(Device);
        torch::NoGradGuard NoGrad;
        torch::Tensor Sum =
            torch::zeros({}, Input.options().dtype(torch::kFloat));
        for (int64_t I = 0; I < Iterations; ++I) {
          torch::nn::Sequential Model = BuildOnce ? *Built : W.model(Device);
          Sum = Sum + Model->forward(Input).sum();
        }
        return Sum;
      };
    };
    return compareSpeed(Ctx, Device, Run(false), Run(true),
                        toleranceFor(c10::ScalarType::Float));
  }

  static ScenarioOutcome replayOptimizer(const Workload &W,
                                         const torch::Tensor &Input,
                                         int64_t Iterations,
                                         const c10::Device &Device,
                                         ReplayContext &Ctx) {
    Ctx.assume("SGD with momentum 0.9 and learning rate 0.01");
    // The two variants train differently by design: a new optimizer on
    // every step starts from zero momentum. The speed is timed on the same
    // steps; the weights they reach are compared and reported, not required
    // to agree.
    auto Train = [&, Input](bool BuildOnce) {
      torch::nn::Sequential Model = W.model(Device);
      torch::Tensor Target = W.target(Device);
      auto Options = torch::optim::SGDOptions(0.01).momentum(0.9);
      auto Kept =
          std::make_shared<torch::optim::SGD>(Model->parameters(), Options);
      return [=]() mutable {
        for (int64_t I = 0; I < Iterations; ++I) {
          std::shared_ptr<torch::optim::SGD> Optimizer =
              BuildOnce ? Kept
                        : std::make_shared<torch::optim::SGD>(
                              Model->parameters(), Options);
          trainingStep(Model, *Optimizer, Input, Target);
        }
        return Model->parameters().front().detach().clone();
      };
    };
    auto Original = Train(false), Fixed = Train(true);
    torch::Tensor OriginalWeights = Original(), FixedWeights = Fixed();
    nlohmann::json Compared = nlohmann::json::object();
    bool SameWeights =
        sameResult(OriginalWeights, FixedWeights,
                   toleranceFor(c10::ScalarType::Float), Compared);
    torch::Tensor Nothing = torch::zeros({1});
    ScenarioOutcome Outcome = judgeSpeed(
        timeAlternately(
            Device, [&] { Original(); }, [&] { Fixed(); }, Ctx.Timing),
        Nothing, Nothing, toleranceFor(c10::ScalarType::Float), Device);
    Outcome.Measurements["weights_agree_after_training"] = SameWeights;
    Outcome.Measurements["weights_note"] =
        "a new optimizer on every step forgets its momentum, so the weights "
        "differ from those of one optimizer kept across the steps";
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeSetupInLoopScenario() {
  return std::make_unique<SetupInLoopScenario>();
}

} // namespace torchlint::replay
