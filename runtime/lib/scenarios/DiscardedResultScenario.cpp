//===--- DiscardedResultScenario.cpp - A tensor operation's result lost ---===//
//
// The claim: a tensor operation written as a statement leaves its operand as
// it was. For a move (`x.to(device);`) the module that then reads the tensor
// on the GPU raises, and assigning the result fixes it; for any other
// operation (`x.div(255);`) the operand's values, or its layout, are those of
// before, where the fix's are not.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <torch/torch.h>

namespace torchlint::replay {
namespace {

/// The operations the replay runs as the recipe names them; any other is
/// replayed as a division, which the assumptions say.
torch::Tensor perform(const std::string &Operation, const torch::Tensor &X) {
  if (Operation == "mul")
    return X.mul(2);
  if (Operation == "add")
    return X.add(1);
  if (Operation == "sub")
    return X.sub(1);
  if (Operation == "clamp")
    return X.clamp(-0.5, 0.5);
  if (Operation == "sigmoid")
    return X.sigmoid();
  if (Operation == "relu")
    return X.relu();
  if (Operation == "contiguous")
    return X.contiguous();
  if (Operation == "permute")
    return X.permute({1, 0});
  return X.div(255);
}

bool replayedAsWritten(const std::string &Operation) {
  static const char *const Known[] = {"div",  "mul",        "add",
                                      "sub",  "clamp",      "sigmoid",
                                      "relu", "contiguous", "permute"};
  return std::find(std::begin(Known), std::end(Known), Operation) !=
         std::end(Known);
}

bool sameTensor(const torch::Tensor &A, const torch::Tensor &B) {
  return A.sizes() == B.sizes() && A.strides() == B.strides() &&
         torch::equal(A, B);
}

class DiscardedResultScenario : public Scenario {
public:
  const char *id() const override { return scenario::DiscardedResult; }
  // A lost move needs a GPU to fail on; any other lost result shows on the
  // CPU as well.
  bool needsCuda() const override { return false; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    if (recipeBool(Recipe, "moves", false))
      return replayMove(Recipe, Ctx);
    return replayOperation(Recipe, Ctx);
  }

private:
  static ScenarioOutcome replayMove(const nlohmann::json &Recipe,
                                    ReplayContext &Ctx) {
    if (!Ctx.cudaUsable())
      return ScenarioOutcome::notRun("a lost move shows only with a GPU: " +
                                     Ctx.CudaUnusable);
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    torch::nn::Sequential Model = W.model(Ctx.Device);
    if (recipeString(Recipe, "operation") != "to")
      Ctx.assume("replayed as a move from the CPU to the device the module "
                 "is on, as 'to' would make it");
    Ctx.assume("the tensor starts on the CPU and is then read by a module on " +
               Ctx.Device.str());
    ScenarioOutcome Outcome;
    Outcome.RanOn = Ctx.Device.str();
    torch::Tensor X = W.input(torch::kCPU);
    std::string Raised;
    try {
      X.to(Ctx.Device); // the statement as written
      Model->forward(X);
      synchronize(Ctx.Device);
    } catch (const std::exception &E) {
      std::string What = E.what();
      if (What.find("device") == std::string::npos)
        throw;
      Raised = firstLine(What);
    }
    Outcome.Measurements["original_device"] = X.device().str();
    X = X.to(Ctx.Device); // the fix
    torch::Tensor Fixed = Model->forward(X);
    synchronize(Ctx.Device);
    Outcome.Measurements["fixed_device"] = X.device().str();
    if (Raised.empty()) {
      Outcome.Result = Verdict::NotRun;
      Outcome.Reason = "the original ran without error on this device";
    } else {
      Outcome.Result = Verdict::CrashConfirmed;
      Outcome.Reason =
          "the tensor stayed on the CPU and the module raises: " + Raised;
    }
    return Outcome;
  }

  static ScenarioOutcome replayOperation(const nlohmann::json &Recipe,
                                         ReplayContext &Ctx) {
    const std::string Operation = recipeString(Recipe, "operation", "div");
    if (!replayedAsWritten(Operation))
      Ctx.assume("'" + Operation +
                 "' is replayed as 'div(255)': any "
                 "operation that returns a new tensor loses it alike");
    c10::Device Device = Ctx.deviceOrCpu();
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    torch::Tensor Input = W.input(Device);
    // A layout operation changes nothing on a tensor that already has it.
    if (Operation == "contiguous")
      Input = Input.t();
    ScenarioOutcome Outcome;
    Outcome.RanOn = Device.str();
    // clone() keeps the strides of a dense tensor, so Before is the operand
    // as it was, layout included.
    torch::Tensor Before = Input.clone();
    perform(Operation, Input); // the statement as written
    torch::Tensor Fixed = perform(Operation, Input);
    synchronize(Device);
    const bool Unchanged = sameTensor(Before, Input);
    const bool FixChanges = !sameTensor(Fixed, Before);
    Outcome.Measurements["original_unchanged"] = Unchanged;
    Outcome.Measurements["fix_changes_it"] = FixChanges;
    if (Unchanged && FixChanges) {
      Outcome.Result = Verdict::WrongResultConfirmed;
      Outcome.Reason = "after the statement the tensor is as it was; with "
                       "the result assigned it is what '" +
                       Operation + "' computes";
    } else {
      Outcome.Result = Verdict::NotRun;
      Outcome.Reason = "on this input the operation's result equals its "
                       "operand, so losing it changes nothing";
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeDiscardedResultScenario() {
  return std::make_unique<DiscardedResultScenario>();
}

} // namespace torchlint::replay
