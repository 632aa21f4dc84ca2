//===--- DataParallelNotCloneableScenario.cpp - clone() throws -----------===//
//
// The claim: data_parallel on more than one device (and replicate on any)
// calls module->clone(device) for each device, and clone() throws for the
// kind of module the recipe names: a plain torch::nn::Module subclass, or a
// Cloneable whose constructor registers what its reset() does not, alone
// or as the submodule of a correct Cloneable (a plain submodule does not
// throw: the clone keeps the fresh one its reset() built, weights and all,
// where it was built). The scenario makes that call and compares the
// clone's parameters, on the original and on the fix (a Cloneable that
// registers in reset()),
// on the requested GPU or else the CPU: it needs neither two devices nor a
// libtorch built with CUDA, which data_parallel.h itself does.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "common/Scenarios.h"

#include <torch/torch.h>

namespace torchlint::replay {
namespace {

constexpr int64_t Width = 16;

/// The original of kind "not-cloneable".
struct PlainImpl : torch::nn::Module {
  PlainImpl() { fc = register_module("fc", torch::nn::Linear(Width, Width)); }
  torch::Tensor forward(torch::Tensor X) { return fc(X); }
  torch::nn::Linear fc{nullptr};
};

/// The original of kind "registers-in-constructor".
struct ConstructorRegisteredImpl
    : torch::nn::Cloneable<ConstructorRegisteredImpl> {
  ConstructorRegisteredImpl() {
    fc = register_module("fc", torch::nn::Linear(Width, Width));
  }
  void reset() override {}
  torch::Tensor forward(torch::Tensor X) { return fc(X); }
  torch::nn::Linear fc{nullptr};
};

/// The fix of either kind.
struct FixedImpl : torch::nn::Cloneable<FixedImpl> {
  FixedImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", torch::nn::Linear(Width, Width));
  }
  torch::Tensor forward(torch::Tensor X) { return fc(X); }
  torch::nn::Linear fc{nullptr};
};

/// A correct Cloneable around one of the above, for a submodule's failure.
template <typename Inner>
struct OuterImpl : torch::nn::Cloneable<OuterImpl<Inner>> {
  OuterImpl() { reset(); }
  void reset() override {
    inner = this->register_module("inner", std::make_shared<Inner>());
  }
  std::shared_ptr<Inner> inner;
};

std::shared_ptr<torch::nn::Module> build(const std::string &Kind,
                                         bool Submodule, bool Fixed) {
  if (Fixed)
    return Submodule ? std::shared_ptr<torch::nn::Module>(
                           std::make_shared<OuterImpl<FixedImpl>>())
                     : std::make_shared<FixedImpl>();
  if (Kind == "registers-in-constructor")
    return Submodule
               ? std::shared_ptr<torch::nn::Module>(
                     std::make_shared<OuterImpl<ConstructorRegisteredImpl>>())
               : std::make_shared<ConstructorRegisteredImpl>();
  return Submodule ? std::shared_ptr<torch::nn::Module>(
                         std::make_shared<OuterImpl<PlainImpl>>())
                   : std::make_shared<PlainImpl>();
}

/// What clone(Device) made of a module.
struct Cloned {
  /// The first line of what it raised; empty when it cloned.
  std::string Raised;
  /// Every parameter of the clone equals the original's and is on Device.
  bool Copied = false;
};

Cloned cloneOf(const std::shared_ptr<torch::nn::Module> &Module,
               const c10::Device &Device) {
  Cloned Result;
  try {
    std::shared_ptr<torch::nn::Module> Copy = Module->clone(Device);
    Result.Copied = true;
    auto Theirs = Copy->named_parameters();
    for (const auto &Mine : Module->named_parameters()) {
      const torch::Tensor *Other = Theirs.find(Mine.key());
      Result.Copied &= Other && Other->device() == Device &&
                       torch::equal(Other->cpu(), Mine.value().cpu());
    }
  } catch (const std::exception &E) {
    Result.Raised = firstLine(E.what());
  }
  return Result;
}

std::string describe(const Cloned &C) {
  if (!C.Raised.empty())
    return "raised: " + C.Raised;
  return C.Copied ? "cloned" : "cloned without copying every parameter";
}

class DataParallelNotCloneableScenario : public Scenario {
public:
  const char *id() const override { return scenario::DataParallelNotCloneable; }
  bool needsCuda() const override { return false; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    std::string Kind = recipeString(Recipe, "kind");
    if (Kind != "not-cloneable" && Kind != "registers-in-constructor") {
      Kind = "not-cloneable";
      Ctx.assume("the module's kind is not known; a plain torch::nn::Module "
                 "subclass");
    }
    bool Submodule = recipeBool(Recipe, "submodule", false);
    c10::Device Device =
        Ctx.deviceOrCpu("clone() throws or not whatever the device");
    Ctx.assume("module->clone(device), which " +
               recipeString(Recipe, "call", "data_parallel") +
               " calls for each device, is called once, on " + Device.str());
    ScenarioOutcome Outcome;
    Outcome.RanOn = Device.str();
    Cloned Original = cloneOf(build(Kind, Submodule, false), Device);
    Cloned Fixed = cloneOf(build(Kind, Submodule, true), Device);
    Outcome.Measurements["original_clone"] = describe(Original);
    Outcome.Measurements["fixed_clone"] = describe(Fixed);
    if (!Fixed.Raised.empty() || !Fixed.Copied)
      return ScenarioOutcome::notRun("the fixed module did not clone either: " +
                                     describe(Fixed));
    if (!Original.Raised.empty()) {
      Outcome.Result = Verdict::CrashConfirmed;
      Outcome.Reason = "clone() raises for the original: " + Original.Raised;
    } else if (!Original.Copied) {
      Outcome.Result = Verdict::WrongResultConfirmed;
      Outcome.Reason = "the original's clone holds a submodule rebuilt by "
                       "reset(), with fresh weights where it was built, not "
                       "a copy on " +
                       Device.str();
    } else {
      Outcome.Result = Verdict::NotRun;
      Outcome.Reason = "the original module cloned here; the claim did not "
                       "reproduce";
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeDataParallelNotCloneableScenario() {
  return std::make_unique<DataParallelNotCloneableScenario>();
}

} // namespace torchlint::replay
