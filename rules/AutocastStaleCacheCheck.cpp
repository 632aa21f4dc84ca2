#include "rules/AutocastStaleCacheCheck.h"

#include "common/Scenarios.h"

#include "analysis/DeviceFlow.h"
#include "analysis/EnclosingBlocks.h"
#include "api/ModuleCallMatchers.h"
#include "recipe/WorkloadRecipe.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

using autocast::Action;
using autocast::AutocastCall;

const RuleInfo AutocastStaleCacheCheck::Info = {
    "torch-autocast-stale-cache",
    "AutocastStaleCache",
    "CUDA autocast is turned off without clearing its cast cache",
    Level::Error,
    /*OffersFixIts=*/true,
    "correctness,mixed-precision,gpu,libtorch",
    "high",
};

namespace {
bool isCudaSwitch(const AutocastCall &Read) {
  return Read.Device == api::DeviceKind::CUDA ||
         (Read.TakesDevice && Read.Device == api::DeviceKind::Unknown);
}
} // namespace

void AutocastStaleCacheCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(callee(functionDecl(
                   hasAnyName("set_enabled", "set_autocast_enabled",
                              "clear_cache", "set_autocast_cache_enabled",
                              "set_autocast_gpu_dtype", "set_autocast_dtype"))))
          .bind("autocast"),
      this);
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName("backward", "grad", "step"))))
          .bind("training"),
      this);
  matchModuleCalls(Finder, this);
}

void AutocastStaleCacheCheck::check(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  DeviceFlow &Flow = context().deviceFlow(*Ctx);
  if (const auto *Call = Result.Nodes.getNodeAs<Expr>("module-call")) {
    if (api::calledModule(Call))
      ModuleCalls.push_back({Call, Flow.enclosingFunction(Call)});
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("training")) {
    if (api::isBackwardCall(Call) || api::isOptimizerCall(Call))
      TrainingCalls.push_back({Call, Flow.enclosingFunction(Call)});
    return;
  }
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("autocast");
  if (std::optional<AutocastCall> Read = autocast::classify(Call, *Ctx))
    Calls.push_back({*Read, Flow.enclosingFunction(Call)});
}

bool AutocastStaleCacheCheck::clearedAround(const Located &Off) const {
  const SourceManager &SM = Ctx->getSourceManager();
  auto Before = [&](const Stmt *A, const Stmt *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  };
  for (const Located &Clear : Calls) {
    if (Clear.Function != Off.Function)
      continue;
    // With caching turned off first, nothing is kept to go stale.
    if (Clear.Read.What == Action::DisableCache &&
        Before(Clear.Read.Call, Off.Read.Call))
      return true;
    if (Clear.Read.What != Action::ClearCache)
      continue;
    if (Before(Off.Read.Call, Clear.Read.Call)) {
      // After the switch-off, before autocast is turned on again.
      bool Reopened = llvm::any_of(Calls, [&](const Located &On) {
        return On.Read.What == Action::Enable && On.Function == Off.Function &&
               Before(Off.Read.Call, On.Read.Call) &&
               Before(On.Read.Call, Clear.Read.Call);
      });
      if (!Reopened)
        return true;
      continue;
    }
    // Just before the switch-off, with no module run in between.
    bool Ran = llvm::any_of(ModuleCalls, [&](const auto &Module) {
      return Module.second == Off.Function &&
             Before(Clear.Read.Call, Module.first) &&
             Before(Module.first, Off.Read.Call);
    });
    if (!Ran)
      return true;
  }
  return false;
}

void AutocastStaleCacheCheck::onEndOfTranslationUnit() {
  if (Ctx && llvm::any_of(Calls, [](const Located &L) {
        return L.Read.What == Action::Enable && isCudaSwitch(L.Read);
      })) {
    const SourceManager &SM = Ctx->getSourceManager();
    for (const Located &Off : Calls) {
      if ((Off.Read.What != Action::Disable &&
           Off.Read.What != Action::SetFromValue) ||
          !isCudaSwitch(Off.Read))
        continue;
      // The latest CUDA switch-on of the same function before it, and
      // whether one follows it.
      const Located *On = nullptr;
      bool OnAfter = false;
      for (const Located &L : Calls) {
        if (L.Read.What != Action::Enable || !isCudaSwitch(L.Read) ||
            L.Function != Off.Function)
          continue;
        if (SM.isBeforeInTranslationUnit(L.Read.Call->getBeginLoc(),
                                         Off.Read.Call->getBeginLoc()))
          On = &L;
        else
          OnAfter = true;
      }
      if ((!On && OnAfter) || clearedAround(Off))
        continue;
      reportAt(Off, On);
    }
  }
  Calls.clear();
  ModuleCalls.clear();
  TrainingCalls.clear();
}

void AutocastStaleCacheCheck::reportAt(const Located &Off, const Located *On) {
  ASTContext &Ctx = *this->Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  FindingBuilder Finding = report(
      Ctx, Off.Read.Call->getSourceRange(),
      "CUDA autocast is turned off without 'at::autocast::clear_cache()': "
      "the low-precision copies of the weights that autocast cached outlive "
      "the region, so once the optimizer updates the weights in place the "
      "next region computes with the old ones; clear the cache where the "
      "region ends");
  if (On)
    Finding.note(On->Read.Call->getSourceRange(), "autocast is turned on here");
  if (const Stmt *Statement = statementInBlock(Off.Read.Call, Ctx))
    Finding.insertLineAfter(lastTokenOf(Statement, Ctx),
                            indentationOf(Statement->getBeginLoc(), SM) +
                                "at::autocast::clear_cache();");

  // The dtype of the region, and the first module it runs.
  std::string Dtype = autocast::DefaultCudaDtype;
  for (const Located &L : Calls)
    if (L.Read.What == Action::SetDtype && isCudaSwitch(L.Read) &&
        !L.Read.Dtype.empty())
      Dtype = L.Read.Dtype;
  const Expr *Module = nullptr;
  for (const auto &[Call, Function] : ModuleCalls)
    if (Function == Off.Function &&
        (!On || SM.isBeforeInTranslationUnit(On->Read.Call->getBeginLoc(),
                                             Call->getBeginLoc())) &&
        SM.isBeforeInTranslationUnit(Call->getBeginLoc(),
                                     Off.Read.Call->getBeginLoc())) {
      Module = Call;
      break;
    }
  // The optimizer that updates the weights in place, and where the backward
  // pass runs.
  const CallExpr *Backward = nullptr, *Step = nullptr;
  for (const auto &[Call, Function] : TrainingCalls)
    if (Function == Off.Function) {
      const CallExpr *&Slot = api::isBackwardCall(Call) ? Backward : Step;
      if (!Slot)
        Slot = Call;
    }
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  Finding.recipe(
      {{"scenario", scenario::AutocastStaleCache},
       {"device", "cuda"},
       {"dtype", Dtype},
       {"module",
        Module ? recipe::describeModule(api::calledModule(Module), nullptr, Ctx)
               : nlohmann::json()},
       {"input",
        Module ? recipe::describeInput(api::moduleInput(Module), Flow, Ctx)
               : nlohmann::json()},
       {"optimizer", recipe::describeOptimizer(Step)},
       {"backward",
        recipe::describeBackward(Backward, context().autocastFlow(Ctx))}});
}

} // namespace torchlint
