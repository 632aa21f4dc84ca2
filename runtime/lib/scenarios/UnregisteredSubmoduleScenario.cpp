//===--- UnregisteredSubmoduleScenario.cpp - A member left out of to() ----===//
//
// The claim: a member never registered is skipped by to(), by parameters()
// and by eval(). A module with one registered layer and one member of the
// recipe's kind (a layer, a trained weight, a buffer, a dropout), built with
// and without the registration, is moved, trained one step and switched to
// evaluation. Moving to the GPU needs one; on the CPU the module is moved to
// double precision instead, which to() skips in the same way. All of it runs
// on the CPU too.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Timing.h"
#include "common/Scenarios.h"

#include <torch/torch.h>

namespace torchlint::replay {
namespace {

constexpr int64_t Width = 16;

struct ProbeImpl : torch::nn::Module {
  ProbeImpl(const std::string &Kind, bool Registered) : Kind(Kind) {
    head = register_module("head", torch::nn::Linear(Width, Width));
    if (Kind == "parameter") {
      weight = torch::randn({Width, Width}).requires_grad_();
      if (Registered)
        weight = register_parameter("weight", weight);
    } else if (Kind == "buffer") {
      mean = torch::full({Width}, 0.5);
      if (Registered)
        mean = register_buffer("mean", mean);
    } else if (Kind == "dropout") {
      drop = torch::nn::Dropout(0.5);
      if (Registered)
        drop = register_module("drop", drop);
    } else {
      layer = torch::nn::Linear(Width, Width);
      if (Registered)
        layer = register_module("layer", layer);
    }
  }
  torch::Tensor forward(torch::Tensor X) {
    if (Kind == "parameter")
      X = torch::matmul(X, weight);
    else if (Kind == "buffer")
      X = X - mean;
    else if (Kind == "dropout")
      X = drop(X);
    else
      X = layer(X);
    return head(X);
  }
  /// The member's weight, where it has one.
  torch::Tensor trainedWeight() {
    if (Kind == "parameter")
      return weight;
    if (Kind == "module")
      return layer->weight;
    return {};
  }
  /// The member's tensor that to() should move.
  torch::Tensor memberTensor() {
    return Kind == "buffer" ? mean : trainedWeight();
  }
  std::string Kind;
  torch::nn::Linear head{nullptr}, layer{nullptr};
  torch::nn::Dropout drop{nullptr};
  torch::Tensor weight, mean;
};
TORCH_MODULE(Probe);

struct AfterMove {
  /// Whether to() reached the member's tensor.
  bool MemberMoved = false;
  /// The first line of the error the forward pass raised; empty when it ran.
  std::string Raised;
};

AfterMove moveAndRun(Probe Model, const c10::Device &Device, bool ToDouble) {
  AfterMove Result;
  torch::Tensor Input = torch::randn({4, Width});
  if (ToDouble) {
    Model->to(torch::kDouble);
    Input = Input.to(torch::kDouble);
    Result.MemberMoved = Model->memberTensor().scalar_type() == torch::kDouble;
  } else {
    Model->to(Device);
    Input = Input.to(Device);
    Result.MemberMoved = Model->memberTensor().device() == Device;
  }
  try {
    Model->forward(Input);
    synchronize(Device);
  } catch (const std::exception &E) {
    Result.Raised = firstLine(E.what());
  }
  return Result;
}

/// Whether one optimizer step over parameters() changed the member's weight.
bool stepChangesMember(Probe Model) {
  torch::Tensor Before = Model->trainedWeight().detach().clone();
  torch::optim::SGD Optimizer(Model->parameters(), 0.1);
  Optimizer.zero_grad();
  Model->forward(torch::randn({4, Width})).pow(2).sum().backward();
  Optimizer.step();
  return !torch::equal(Before, Model->trainedWeight().detach());
}

/// Whether two passes over one input agree once eval() was called.
bool evalIsDeterministic(Probe Model) {
  torch::NoGradGuard NoGrad;
  Model->eval();
  torch::Tensor Input = torch::randn({4, Width});
  return torch::equal(Model->forward(Input), Model->forward(Input));
}

class UnregisteredSubmoduleScenario : public Scenario {
public:
  const char *id() const override { return scenario::UnregisteredSubmodule; }
  bool needsCuda() const override { return false; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    std::string Kind = recipeString(Recipe, "kind");
    if (Kind != "module" && Kind != "parameter" && Kind != "buffer" &&
        Kind != "dropout") {
      Kind = "module";
      Ctx.assume("the member's kind is not known; a torch::nn::Linear");
    }
    torch::manual_seed(0);
    ScenarioOutcome Outcome;
    bool ToDouble = !Ctx.cudaUsable();
    c10::Device Device =
        ToDouble ? c10::Device(c10::DeviceType::CPU) : Ctx.Device;
    if (ToDouble)
      Ctx.assume("no usable GPU (" + Ctx.CudaUnusable +
                 "): the module is moved to double precision instead, which "
                 "to() skips in the same way");
    Outcome.RanOn = Device.str();

    std::optional<AfterMove> Moved;
    if (Kind != "dropout") {
      Moved = moveAndRun(Probe(Kind, false), Device, ToDouble);
      AfterMove Fixed = moveAndRun(Probe(Kind, true), Device, ToDouble);
      if (!Fixed.Raised.empty() || !Fixed.MemberMoved)
        return ScenarioOutcome::notRun(
            "the registered variant was not moved and run either: " +
            Fixed.Raised);
      Outcome.Measurements["original_after_to"] = {
          {"member_moved", Moved->MemberMoved},
          {"forward",
           Moved->Raised.empty() ? "ran" : "raised: " + Moved->Raised}};
      Outcome.Measurements["fixed_after_to"] = {{"member_moved", true},
                                                {"forward", "ran"}};
    }
    std::optional<bool> Trained;
    if (Kind == "module" || Kind == "parameter") {
      Trained = stepChangesMember(Probe(Kind, false));
      bool FixedTrained = stepChangesMember(Probe(Kind, true));
      Outcome.Measurements["weight_changed_by_a_step"] = {
          {"original", *Trained}, {"fixed", FixedTrained}};
      if (!FixedTrained)
        Trained.reset();
    }
    std::optional<bool> Deterministic;
    if (Kind == "dropout") {
      Deterministic = evalIsDeterministic(Probe(Kind, false));
      bool FixedDeterministic = evalIsDeterministic(Probe(Kind, true));
      Outcome.Measurements["deterministic_after_eval"] = {
          {"original", *Deterministic}, {"fixed", FixedDeterministic}};
      if (!FixedDeterministic)
        Deterministic.reset();
    }

    if (Moved && !Moved->Raised.empty()) {
      Outcome.Result = Verdict::CrashConfirmed;
      Outcome.Reason = "after to(), the original raises: " + Moved->Raised;
    } else if (Moved && !Moved->MemberMoved) {
      Outcome.Result = Verdict::WrongResultConfirmed;
      Outcome.Reason = "to() left the unregistered member behind, where the "
                       "next operation that does not promote it fails";
    } else if (Trained && !*Trained) {
      Outcome.Result = Verdict::WrongResultConfirmed;
      Outcome.Reason = "an optimizer step leaves the unregistered weight as "
                       "it was; registered, it is trained";
    } else if (Deterministic && !*Deterministic) {
      Outcome.Result = Verdict::WrongResultConfirmed;
      Outcome.Reason = "after eval(), the unregistered dropout still drops "
                       "activations; registered, it does not";
    } else {
      Outcome.Result = Verdict::NotRun;
      Outcome.Reason = "the unregistered member behaved as a registered one "
                       "here; the claim did not reproduce";
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeUnregisteredSubmoduleScenario() {
  return std::make_unique<UnregisteredSubmoduleScenario>();
}

} // namespace torchlint::replay
