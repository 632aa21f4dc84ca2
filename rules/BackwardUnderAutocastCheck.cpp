#include "rules/BackwardUnderAutocastCheck.h"

#include "analysis/AutocastCallers.h"
#include "analysis/AutocastFlow.h"
#include "analysis/DeviceFlow.h"
#include "analysis/StepContext.h"
#include "matchers/AutocastApi.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo BackwardUnderAutocastCheck::Info = {
    "torch-backward-under-autocast",
    "BackwardUnderAutocast",
    "the backward pass runs while autocast is on",
    Level::Warning,
    /*OffersFixIts=*/false,
    "mixed-precision,gpu,libtorch",
    "high",
};

namespace {
const char *autocastName(api::DeviceKind Device) {
  switch (Device) {
  case api::DeviceKind::CUDA:
    return "CUDA autocast";
  case api::DeviceKind::CPU:
    return "CPU autocast";
  default:
    return "autocast for the device chosen at run time";
  }
}
} // namespace

void BackwardUnderAutocastCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName("backward", "grad"))))
          .bind("backward"),
      this);
}

void BackwardUnderAutocastCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("backward");
  if (!api::isBackwardCall(Call))
    return;
  ASTContext &Ctx = *Result.Context;
  AutocastFlow &Autocast = context().autocastFlow(Ctx);
  for (api::DeviceKind Device : {api::DeviceKind::CUDA, api::DeviceKind::CPU,
                                 api::DeviceKind::Unknown}) {
    std::optional<AutocastSetting> Setting = Autocast.before(Call, Device);
    if (!Setting || !Setting->isOn())
      continue;
    report(Ctx, Call->getSourceRange(),
           llvm::Twine("the backward pass runs while ") + autocastName(Device) +
               " is on, so it goes through autocast's casts again although "
               "each backward op already runs in the dtype of its forward op")
        .note(Setting->TurnedOn->getSourceRange(), "autocast is turned on here")
        .remedy("turn autocast off once the loss is computed, then call "
                "backward()");
    return;
  }
  // Autocast is process state: a function that does not switch it runs
  // under whatever its callers left on, here or in another unit.
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  const FunctionDecl *Function = Flow.index().enclosingFunction(Call);
  AutocastOrigin Caller =
      autocastOnAt(Call, Function, Autocast, Flow, &context().stepContext(Ctx));
  if (!Caller)
    return;
  FindingBuilder Finding = report(
      Ctx, Call->getSourceRange(),
      "the backward pass runs while autocast is on in a caller, so it goes "
      "through autocast's casts again although each backward op already runs "
      "in the dtype of its forward op");
  const char *TurnedOn = "autocast is turned on here, before the call";
  if (Caller.Here)
    Finding.note(Caller.Here->getSourceRange(), TurnedOn);
  else
    Finding.note(*Caller.Elsewhere, TurnedOn);
  Finding.remedy("turn autocast off once the loss is computed, before the "
                 "function that calls backward() runs it");
}

} // namespace torchlint
