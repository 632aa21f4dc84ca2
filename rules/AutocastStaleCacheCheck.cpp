#include "rules/AutocastStaleCacheCheck.h"

#include "common/Scenarios.h"

#include "analysis/AutocastFlow.h"
#include "analysis/DeviceFlow.h"
#include "analysis/EnclosingBlocks.h"
#include "analysis/FunctionCfg.h"
#include "matchers/Matchers.h"
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
/// Some path from From (exclusive) reaches To.
bool reaches(const FunctionCfg &Cfg, const Stmt *From, const Stmt *To,
             ASTContext &Ctx) {
  std::optional<FunctionCfg::Place> Place = Cfg.placeOf(From, Ctx);
  return Place && Cfg.search(*Place, [&](const CFGElement &E) {
    std::optional<CFGStmt> S = E.getAs<CFGStmt>();
    return S && S->getStmt() == To ? FunctionCfg::Step::Found
                                   : FunctionCfg::Step::Continue;
  }) != nullptr;
}

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
  matchers::matchModuleCalls(Finder, this);
}

void AutocastStaleCacheCheck::check(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  DeviceFlow &Flow = context().deviceFlow(*Ctx);
  if (const auto *Call = Result.Nodes.getNodeAs<Expr>("module-call")) {
    if (api::calledModule(Call))
      ModuleCalls.push_back({Call, Flow.index().enclosingFunction(Call)});
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("training")) {
    if (api::isBackwardCall(Call) || api::isOptimizerCall(Call))
      TrainingCalls.push_back({Call, Flow.index().enclosingFunction(Call)});
    return;
  }
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("autocast");
  if (std::optional<AutocastCall> Read = autocast::classify(Call, *Ctx))
    Calls.push_back({*Read, Flow.index().enclosingFunction(Call)});
}

bool AutocastStaleCacheCheck::clearedAround(
    const Located &Off, const std::optional<CastCacheSetting> &Before) {
  // With caching turned off, nothing is kept to go stale; a clear with no
  // module run since leaves nothing to keep.
  if (Before && (Before->MayBeUncached || Before->MayBeCleared))
    return true;
  // A clear after the switch-off on every path, before autocast is turned
  // on again or the function returns.
  const FunctionCfg *Cfg = context().cfgs(*Ctx).of(Off.Read.Call);
  std::optional<FunctionCfg::Place> Place =
      Cfg ? Cfg->placeOf(Off.Read.Call, *Ctx) : std::nullopt;
  if (!Place)
    return false;
  bool Returns = false;
  const Stmt *Reopened = Cfg->search(
      *Place,
      [&](const CFGElement &E) {
        std::optional<CFGStmt> S = E.getAs<CFGStmt>();
        const auto *Call = S ? dyn_cast<CallExpr>(S->getStmt()) : nullptr;
        std::optional<AutocastCall> Read =
            Call ? autocast::classify(Call, *Ctx) : std::nullopt;
        if (!Read)
          return FunctionCfg::Step::Continue;
        if (Read->What == Action::ClearCache)
          return FunctionCfg::Step::EndPath;
        if (Read->What == Action::Enable && isCudaSwitch(*Read))
          return FunctionCfg::Step::Found;
        return FunctionCfg::Step::Continue;
      },
      &Returns);
  return !Reopened && !Returns;
}

void AutocastStaleCacheCheck::onEndOfTranslationUnit() {
  if (Ctx && llvm::any_of(Calls, [](const Located &L) {
        return L.Read.What == Action::Enable && isCudaSwitch(L.Read);
      })) {
    AutocastFlow &Flow = context().autocastFlow(*Ctx);
    for (const Located &Off : Calls) {
      if ((Off.Read.What != Action::Disable &&
           Off.Read.What != Action::SetFromValue) ||
          !isCudaSwitch(Off.Read))
        continue;
      // A switch-on of the function that reaches the switch-off; a function
      // that turns autocast on, but not before this, resets it here.
      std::optional<CastCacheSetting> Before = Flow.cacheBefore(Off.Read.Call);
      const CallExpr *On =
          Before && !Before->Open.empty() ? Before->Open.back() : nullptr;
      bool TurnsOn = llvm::any_of(Calls, [&](const Located &L) {
        return L.Read.What == Action::Enable && isCudaSwitch(L.Read) &&
               L.Function == Off.Function;
      });
      if ((!On && TurnsOn) || clearedAround(Off, Before))
        continue;
      reportAt(Off, On);
    }
  }
  Calls.clear();
  ModuleCalls.clear();
  TrainingCalls.clear();
}

void AutocastStaleCacheCheck::reportAt(const Located &Off, const CallExpr *On) {
  ASTContext &Ctx = *this->Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  FindingBuilder Finding = report(
      Ctx, Off.Read.Call->getSourceRange(),
      "CUDA autocast is turned off without 'at::autocast::clear_cache()', so "
      "the next region computes with the low-precision copies of the weights "
      "cached before the optimizer updated them");
  Finding.remedy("clear the cache where the region ends");
  if (On)
    Finding.note(On->getSourceRange(), "autocast is turned on here");
  if (const Stmt *Statement = statementInBlock(Off.Read.Call, Ctx))
    Finding.insertLineAfter(lastTokenOf(Statement, Ctx),
                            indentationOf(Statement->getBeginLoc(), SM) +
                                "at::autocast::clear_cache();");

  // The dtype of the region, and the first module it runs.
  AutocastFlow &Autocast = context().autocastFlow(Ctx);
  std::string Dtype = autocast::DefaultCudaDtype;
  std::optional<AutocastSetting> Setting =
      Autocast.before(Off.Read.Call, api::DeviceKind::CUDA);
  std::optional<AutocastCall> Chosen;
  if (Setting && Setting->Dtype)
    Chosen = autocast::classify(Setting->Dtype, Ctx);
  if (Chosen && !Chosen->Dtype.empty()) {
    Dtype = Chosen->Dtype;
  } else {
    // Chosen outside the function (before it is called): the unit's choice,
    // when it makes only one.
    std::optional<std::string> Only;
    bool Agree = true;
    for (const Located &L : Calls)
      if (L.Read.What == Action::SetDtype && isCudaSwitch(L.Read) &&
          !L.Read.Dtype.empty()) {
        Agree = Agree && (!Only || *Only == L.Read.Dtype);
        Only = L.Read.Dtype;
      }
    if (Only && Agree)
      Dtype = *Only;
  }
  const Expr *Module = nullptr;
  const FunctionCfg *Cfg = context().cfgs(Ctx).of(Off.Read.Call);
  for (const auto &[Call, Function] : ModuleCalls) {
    if (Function != Off.Function || !Cfg)
      continue;
    // In the region: under the switch-on, or, for a region opened by the
    // caller, on a path to the switch-off.
    std::optional<CastCacheSetting> At = Autocast.cacheBefore(Call);
    bool InRegion = On ? At && llvm::is_contained(At->Open, On)
                       : At && reaches(*Cfg, Call, Off.Read.Call, Ctx);
    if (InRegion) {
      Module = Call;
      break;
    }
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
