#include "rules/AutocastWrongDeviceCheck.h"

#include "common/Scenarios.h"

#include "analysis/AutocastFlow.h"
#include "analysis/DeviceFlow.h"
#include "matchers/AutocastApi.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

using api::DeviceKind;

const RuleInfo AutocastWrongDeviceCheck::Info = {
    "torch-autocast-wrong-device",
    "AutocastWrongDevice",
    "autocast is on for a device the module does not run on",
    Level::Error,
    /*OffersFixIts=*/false,
    "correctness,mixed-precision,gpu,libtorch",
    "high",
};

namespace {
/// Every place the module may be is Kind.
bool onlyOn(const FactSet &Facts, DeviceKind Kind) {
  return !Facts.empty() && llvm::all_of(Facts, [&](const DeviceFact &F) {
    return F.Kind == Kind && !F.RunTimeChoice;
  });
}

bool turnsOn(const std::optional<AutocastSetting> &Setting) {
  return Setting && Setting->isOn();
}
} // namespace

void AutocastWrongDeviceCheck::registerMatchers(MatchFinder *Finder) {
  matchers::matchModuleCalls(Finder, this);
}

void AutocastWrongDeviceCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<Expr>("module-call");
  const Expr *Module = api::calledModule(Call);
  if (!Module)
    return;
  // A module without parameters (a loss, an activation) has no device of
  // its own: it runs where its inputs are, which tells nothing of the
  // region.
  if (api::isParameterFree(api::moduleClassOf(Module->getType())))
    return;
  ASTContext &Ctx = *Result.Context;
  AutocastFlow &Autocast = context().autocastFlow(Ctx);
  std::optional<AutocastSetting> Cuda = Autocast.before(Call, DeviceKind::CUDA);
  std::optional<AutocastSetting> Cpu = Autocast.before(Call, DeviceKind::CPU);
  if (!turnsOn(Cuda) && !turnsOn(Cpu))
    return;
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  FactSet Facts = Flow.devicesOf(Module);

  const CallExpr *On = nullptr;
  std::string Message;
  const char *Remedy = nullptr;
  // The replay measures what the region was meant to give: the GPU for a
  // model left on the CPU, mixed precision for one already there.
  const char *Scenario = nullptr;
  if (turnsOn(Cuda) && onlyOn(Facts, DeviceKind::CPU)) {
    On = Cuda->TurnedOn;
    Scenario = scenario::HardcodedCpuDevice;
    Message = "CUDA autocast is on, but the module it is meant for runs on "
              "the CPU, so this region casts nothing and the model runs in "
              "fp32";
    Remedy = "move the module and its inputs to the GPU, or turn on CPU "
             "autocast instead";
  } else if (turnsOn(Cpu) && !turnsOn(Cuda) &&
             onlyOn(Facts, DeviceKind::CUDA)) {
    On = Cpu->TurnedOn;
    Scenario = scenario::MissingMixedPrecision;
    Message = "only CPU autocast is on, but the module it is meant for runs "
              "on the GPU, so this region casts nothing and the model runs "
              "in fp32";
    Remedy = "turn on CUDA autocast instead: autocast casts only the ops of "
             "the device it was turned on for";
  }
  if (!On || !Reported.insert(On).second)
    return;
  std::string Name = named("module", Module, Ctx);
  FindingBuilder Finding = report(Ctx, On->getSourceRange(), Message);
  Finding.remedy(Remedy);
  Finding.note(Call->getSourceRange(),
               Name + " runs here, on " + deviceName(Facts.front()));
  if (Facts.front().Origin || Facts.front().OriginDecl)
    Finding.note(Facts.front().originRange(),
                 explainFact(Facts.front(), Name, Ctx));
  Finding.recipe(
      {{"scenario", Scenario},
       {"device", "cuda"},
       {"module", recipe::describeModule(Module, nullptr, Ctx)},
       {"input", recipe::describeInput(api::moduleInput(Call), Flow, Ctx)}});
}

} // namespace torchlint
