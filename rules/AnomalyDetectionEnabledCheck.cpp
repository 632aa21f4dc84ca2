#include "rules/AnomalyDetectionEnabledCheck.h"

#include "analysis/FunctionCfg.h"
#include "analysis/Loops.h"
#include "analysis/UnitIndex.h"
#include "common/Scenarios.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo AnomalyDetectionEnabledCheck::Info = {
    "torch-anomaly-detection-enabled",
    "AnomalyDetectionEnabled",
    "autograd anomaly detection is on while the model trains",
    Level::Warning,
    /*OffersFixIts=*/true,
    "performance,libtorch",
    "high",
};

namespace {
constexpr llvm::StringLiteral AnomalyMode = "::torch::autograd::AnomalyMode";

/// `AnomalyMode::set_enabled(Value)`: its argument's constant value, or
/// nullopt when it is no such call or the value is chosen at run time.
std::optional<bool> switchesTo(const Stmt *S, const ASTContext &Ctx) {
  const auto *Call = dyn_cast_or_null<CallExpr>(S);
  const auto *Method =
      dyn_cast_or_null<CXXMethodDecl>(Call ? Call->getDirectCallee() : nullptr);
  if (!Method || !Method->getDeclName().isIdentifier() ||
      Method->getName() != "set_enabled" || Call->getNumArgs() < 1 ||
      Method->getParent()->getQualifiedNameAsString() !=
          AnomalyMode.drop_front(2))
    return std::nullopt;
  return api::constantBool(Call->getArg(0), Ctx);
}

/// S lies outside Scope's braces. Elements written elsewhere (a default
/// argument, in a header) are not outside: they run where they are used.
bool leaves(const Stmt *S, const CompoundStmt *Scope, const SourceManager &SM) {
  if (!Scope)
    return false;
  SourceLocation Begin = SM.getExpansionLoc(S->getBeginLoc());
  SourceLocation Open = SM.getExpansionLoc(Scope->getLBracLoc());
  if (Begin.isInvalid() || SM.getFileID(Begin) != SM.getFileID(Open))
    return false;
  return SM.isBeforeInTranslationUnit(Begin, Open) ||
         !SM.isBeforeInTranslationUnit(
             Begin, SM.getExpansionLoc(Scope->getRBracLoc()));
}
} // namespace

void AnomalyDetectionEnabledCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(callee(cxxMethodDecl(hasName("set_enabled"),
                                    ofClass(hasName(AnomalyMode)))))
          .bind("switch"),
      this);
  Finder->addMatcher(declStmt(has(varDecl(hasType(cxxRecordDecl(hasName(
                                  "::torch::autograd::DetectAnomalyGuard"))))))
                         .bind("guard"),
                     this);
}

const CallExpr *AnomalyDetectionEnabledCheck::trainingAfter(
    const Stmt *From, const CompoundStmt *Scope, ASTContext &Ctx) {
  const FunctionCfg *Cfg = context().cfgs(Ctx).of(From);
  std::optional<FunctionCfg::Place> Start =
      Cfg ? Cfg->placeOf(From, Ctx) : std::nullopt;
  if (!Start)
    return nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  const CallExpr *Backward = nullptr;
  Cfg->search(*Start, [&](const CFGElement &Element) {
    std::optional<CFGStmt> S = Element.getAs<CFGStmt>();
    if (!S)
      return FunctionCfg::Step::Continue;
    if (leaves(S->getStmt(), Scope, SM) ||
        switchesTo(S->getStmt(), Ctx) == false)
      return FunctionCfg::Step::EndPath;
    Backward = repeatedBackward(S->getStmt(), Ctx, context().userCode());
    return Backward ? FunctionCfg::Step::Found : FunctionCfg::Step::Continue;
  });
  return Backward;
}

void AnomalyDetectionEnabledCheck::check(
    const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *Site = Result.Nodes.getNodeAs<CallExpr>("switch");
  const CompoundStmt *Scope = nullptr;
  if (Site) {
    // set_enabled(flag) and set_enabled(false) are choices, not leftovers.
    if (switchesTo(Site, Ctx) != true)
      return;
  } else {
    Site = Result.Nodes.getNodeAs<DeclStmt>("guard");
    const DynTypedNodeList Parents = Ctx.getParents(*Site);
    Scope = Parents.empty() ? nullptr : Parents[0].get<CompoundStmt>();
    if (!Scope)
      return;
  }
  if (context().inDebugOnlyCode(Site->getBeginLoc(), SM) || inBranch(Site, Ctx))
    return;

  const CallExpr *Backward = trainingAfter(Site, Scope, Ctx);
  // The mode is global: a function that switches it on for its callers
  // (`setup()` before the loop) is followed into them, one level.
  if (!Backward && !Scope)
    if (const FunctionDecl *Function =
            context().unitIndex(Ctx).enclosingFunction(Site))
      if (std::optional<llvm::ArrayRef<UnitIndex::CallSite>> Callers =
              context().unitIndex(Ctx).callSites(Function->getCanonicalDecl()))
        for (const UnitIndex::CallSite &Caller : *Callers)
          if (!context().inDebugOnlyCode(Caller.Call->getBeginLoc(), SM) &&
              !inBranch(Caller.Call, Ctx) &&
              (Backward = trainingAfter(Caller.Call, nullptr, Ctx)))
            break;
  if (!Backward)
    return;

  FindingBuilder Finding =
      report(Ctx, Site->getSourceRange(),
             "autograd anomaly detection is on while the model trains, so "
             "every backward pass records a traceback per operation and "
             "checks for NaN, which makes training several times slower");
  Finding.note(Backward->getSourceRange(),
               "the training loop's backward pass runs here");
  Finding.remedy("it is a debugging aid: keep it to debug builds with "
                 "'#ifndef NDEBUG' ... '#endif', or remove it");
  Finding.recipe({{"scenario", scenario::AnomalyDetectionEnabled},
                  {"how", Scope ? "guard" : "set_enabled"}});
  CharSourceRange Lines = wholeLinesOf(Site, Ctx);
  if (Lines.isValid()) {
    Finding.insertBefore(Lines.getBegin(), "\n#ifndef NDEBUG");
    Finding.insertBefore(Lines.getEnd(), "\n#endif");
  }
}

} // namespace torchlint
