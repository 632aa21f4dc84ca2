#include "rules/AutocastLeakCheck.h"

#include "analysis/AutocastFlow.h"
#include "analysis/DeviceFlow.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

using autocast::Action;
using autocast::AutocastCall;

const RuleInfo AutocastLeakCheck::Info = {
    "torch-autocast-leak",
    "AutocastLeak",
    "autocast stays on along some path out of the code that turned it on",
    Level::Warning,
    /*OffersFixIts=*/false,
    "correctness,mixed-precision,libtorch",
    "high",
};

namespace {
const char *deviceWord(api::DeviceKind Device) {
  return Device == api::DeviceKind::CUDA ? "CUDA" : "CPU";
}

/// Some statement under Root satisfies Match.
template <typename Predicate> bool contains(const Stmt *Root, Predicate Match) {
  struct Finder : RecursiveASTVisitor<Finder> {
    Predicate &Match;
    bool Found = false;
    explicit Finder(Predicate &Match) : Match(Match) {}
    bool VisitStmt(Stmt *S) {
      Found = Found || Match(S);
      return !Found;
    }
  } F(Match);
  F.TraverseStmt(const_cast<Stmt *>(Root));
  return F.Found;
}
} // namespace

void AutocastLeakCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName("set_enabled", "set_cpu_enabled",
                                              "set_autocast_enabled"))))
          .bind("autocast"),
      this);
  matchers::matchModuleCalls(Finder, this);
}

void AutocastLeakCheck::check(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  DeviceFlow &Flow = context().deviceFlow(*Ctx);
  if (const auto *Call = Result.Nodes.getNodeAs<Expr>("module-call")) {
    if (api::calledModule(Call))
      ModuleCalls.push_back({Call, Flow.index().enclosingFunction(Call)});
    return;
  }
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("autocast");
  std::optional<AutocastCall> Read = autocast::classify(Call, *Ctx);
  if (Read && Read->isSwitch() && Read->Device != api::DeviceKind::Unknown)
    if (const FunctionDecl *Function = Flow.index().enclosingFunction(Call))
      Calls.push_back({*Read, Function});
}

bool AutocastLeakCheck::isSwitchOff(const Stmt *S, const Located &On) const {
  return llvm::any_of(Calls, [&](const Located &Off) {
    return Off.Read.Call == S && Off.Function == On.Function &&
           Off.Read.Device == On.Read.Device &&
           (Off.Read.What == Action::Disable ||
            Off.Read.What == Action::SetFromValue);
  });
}

std::vector<const Stmt *>
AutocastLeakCheck::leavingStatements(const Located &On, bool &Exits) {
  std::vector<const Stmt *> Leaving;
  std::optional<AutocastSetting> AtExit =
      context().autocastFlow(*Ctx).atExit(On.Function, On.Read.Device);
  Exits = AtExit && llvm::is_contained(AtExit->Open, On.Read.Call);
  if (!Exits)
    return Leaving;
  for (const auto &[Open, Through] : AtExit->LeftWhileOpen)
    if (Open == On.Read.Call && !llvm::is_contained(Leaving, Through))
      Leaving.push_back(Through);
  // Presented in the order they are read: the first is where the finding
  // is, the others are its notes.
  const SourceManager &SM = Ctx->getSourceManager();
  llvm::sort(Leaving, [&](const Stmt *A, const Stmt *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  return Leaving;
}

const CXXCatchStmt *AutocastLeakCheck::swallowingHandler(const Located &On) {
  DynTypedNodeList Parents = Ctx->getParents(*On.Read.Call);
  // The innermost try block whose body holds the switch-on.
  const CXXTryStmt *Try = nullptr;
  for (unsigned Steps = 0; !Parents.empty() && Steps < 64 && !Try; ++Steps) {
    const DynTypedNode &Parent = Parents[0];
    if (const auto *S = Parent.get<CXXTryStmt>())
      Try = S;
    else if (Parent.get<FunctionDecl>() || Parent.get<LambdaExpr>())
      break;
    Parents = Ctx->getParents(Parent);
  }
  if (!Try)
    return nullptr;
  // The forward pass runs in the try block while the switch-on is in
  // effect, and the switch-off comes after it there.
  AutocastFlow &Flow = context().autocastFlow(*Ctx);
  auto WhileOn = [&](const Stmt *S) {
    std::optional<AutocastSetting> Setting = Flow.before(S, On.Read.Device);
    return Setting && llvm::is_contained(Setting->Open, On.Read.Call);
  };
  bool Forward = llvm::any_of(ModuleCalls, [&](const auto &Module) {
    return Module.second == On.Function && WhileOn(Module.first) &&
           contains(Try->getTryBlock(),
                    [&](const Stmt *S) { return S == Module.first; });
  });
  bool OffInTry = contains(Try->getTryBlock(), [&](const Stmt *S) {
    return isSwitchOff(S, On) && WhileOn(S);
  });
  if (!Forward || !OffInTry)
    return nullptr;
  for (unsigned I = 0; I < Try->getNumHandlers(); ++I) {
    const CXXCatchStmt *Handler = Try->getHandler(I);
    bool Off = contains(Handler->getHandlerBlock(),
                        [&](const Stmt *S) { return isSwitchOff(S, On); });
    // A handler that rethrows hands the exception on: the leak is then the
    // caller's to see.
    bool Rethrows = contains(Handler->getHandlerBlock(), [](const Stmt *S) {
      const auto *Throw = dyn_cast<CXXThrowExpr>(S);
      return Throw && !Throw->getSubExpr();
    });
    if (!Off && !Rethrows)
      return Handler;
  }
  return nullptr;
}

void AutocastLeakCheck::onEndOfTranslationUnit() {
  if (Ctx) {
    llvm::DenseSet<const Stmt *> Reported;
    for (const Located &On : Calls) {
      if (On.Read.What != Action::Enable)
        continue;
      // Only a function that turns autocast off itself means to end the
      // region there.
      bool TurnsOff = llvm::any_of(Calls, [&](const Located &Off) {
        return isSwitchOff(Off.Read.Call, On);
      });
      if (!TurnsOff)
        continue;
      std::string Device = deviceWord(On.Read.Device);
      if (const CXXCatchStmt *Handler = swallowingHandler(On);
          Handler && Reported.insert(Handler).second)
        report(*Ctx, SourceRange(Handler->getCatchLoc()),
               "an exception from the forward pass leaves " + Device +
                   " autocast on and this handler goes on, so what runs next "
                   "runs under autocast")
            .note(On.Read.Call->getSourceRange(), "autocast is turned on here")
            .remedy("turn autocast off in the handler, or use a guard object "
                    "that turns it off in its destructor");
      bool Exits = false;
      std::vector<const Stmt *> Leaving = leavingStatements(On, Exits);
      if (!Exits)
        continue;
      const Stmt *Where = Leaving.empty() ? On.Read.Call : Leaving.front();
      if (!Reported.insert(Where).second)
        continue;
      FindingBuilder Finding =
          Leaving.empty()
              ? report(*Ctx, Where->getSourceRange(),
                       Device + " autocast is turned on here but not turned "
                                "off on every path out of the function, so "
                                "what runs after it may run under autocast")
              : report(*Ctx, Where->getSourceRange(),
                       Device + " autocast stays on when control leaves "
                                "here, so what runs next runs under autocast");
      Finding.remedy(Leaving.empty()
                         ? "use a guard object that turns autocast off in its "
                           "destructor"
                         : "autocast is turned off only on the other paths: "
                           "turn it off before leaving, or use a guard object "
                           "that turns it off in its destructor");
      if (!Leaving.empty())
        Finding.note(On.Read.Call->getSourceRange(),
                     "autocast is turned on here");
      for (size_t I = 1; I < Leaving.size(); ++I)
        Finding.note(Leaving[I]->getSourceRange(),
                     "control also leaves with autocast on here");
    }
  }
  Calls.clear();
  ModuleCalls.clear();
}

} // namespace torchlint
