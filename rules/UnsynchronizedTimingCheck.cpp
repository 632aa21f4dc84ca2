#include "rules/UnsynchronizedTimingCheck.h"

#include "common/Scenarios.h"

#include "analysis/DeviceFlow.h"
#include "analysis/EnclosingBlocks.h"
#include "analysis/FunctionCfg.h"
#include "analysis/Timing.h"
#include "core/FixIts.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo UnsynchronizedTimingCheck::Info = {
    "torch-unsynchronized-timing",
    "UnsynchronizedTiming",
    "a timed interval ends before the GPU work it times has finished",
    Level::Note,
    /*OffersFixIts=*/true,
    "performance,gpu,libtorch",
    "medium",
};

namespace {
AST_MATCHER(CallExpr, readsClock) { return isClockRead(&Node); }

/// torch::cuda::synchronize is declared in the unit, so that the fix-it
/// compiles without an include of its own.
bool declaresCudaSynchronize(ASTContext &Ctx) {
  const DeclContext *Scope = Ctx.getTranslationUnitDecl();
  for (const char *Name : {"torch", "cuda"}) {
    const NamespaceDecl *Found = nullptr;
    for (const NamedDecl *D :
         Scope->getPrimaryContext()->lookup(&Ctx.Idents.get(Name)))
      if ((Found = dyn_cast<NamespaceDecl>(D)))
        break;
    if (!Found)
      return false;
    Scope = Found;
  }
  for (const NamedDecl *D :
       Scope->getPrimaryContext()->lookup(&Ctx.Idents.get("synchronize")))
    if (isa<FunctionDecl>(D))
      return true;
  return false;
}

/// Where the fix adds its line: before the statement that reads the clock at
/// the end, when that statement is a declaration or an expression of its
/// own line in a block (not a loop's or an if's condition, which would run
/// the line once instead of at each read).
const Stmt *lineToPrecede(const Expr *End, ASTContext &Ctx) {
  const Stmt *Holder = statementInBlock(End, Ctx);
  if (!Holder || (!isa<DeclStmt>(Holder) && !isa<Expr>(Holder)))
    return nullptr;
  SourceLocation Start = Holder->getBeginLoc();
  const SourceManager &SM = Ctx.getSourceManager();
  if (Start.isMacroID() || textBeforeOnLine(Start, SM).find_first_not_of(
                               " \t") != llvm::StringRef::npos)
    return nullptr;
  return Holder;
}
} // namespace

void UnsynchronizedTimingCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(callExpr(readsClock()).bind("read"), this);
}

void UnsynchronizedTimingCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Read = Result.Nodes.getNodeAs<CallExpr>("read");
  if (!Read)
    return;
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  const FunctionDecl *Function = functionOf(Read, Ctx);
  if (!Function || Flow.index().inTemplatePattern(Read) ||
      !Done.insert(Function).second)
    return;

  for (const UnsynchronizedInterval &Interval :
       unsynchronizedIntervals(Function, Flow)) {
    FindingBuilder Finding =
        report(Ctx, Interval.End->getSourceRange(),
               "the interval ends before the GPU finishes the work it times" +
                   runTimeCondition(Interval.WorkDevices) +
                   ", so it measures the launch of that work, not the work");
    Finding.note(Interval.Start->getSourceRange(), "the interval starts here");
    Finding.pathNote(Interval.Work->getSourceRange(),
                     "the GPU work is queued here, and the host goes on "
                     "without waiting for it");
    Finding.remedy("wait for the GPU before the clock is read: "
                   "'torch::cuda::synchronize();'");
    noteRunTimeChoices(Finding, Interval.WorkDevices);

    // Guarded: torch::cuda::synchronize() throws where there is no GPU.
    if (const Stmt *Line = lineToPrecede(Interval.End, Ctx);
        Line && declaresCudaSynchronize(Ctx)) {
      SourceLocation At = Line->getBeginLoc();
      Finding.insertBefore(At, "if (torch::cuda::is_available())\n" +
                                   indentationOf(At, Ctx.getSourceManager()) +
                                   "  torch::cuda::synchronize();\n" +
                                   indentationOf(At, Ctx.getSourceManager()));
    }

    const Expr *Module =
        api::isModuleCall(Interval.Work) ? Interval.Work : nullptr;
    Finding.recipe(
        {{"scenario", scenario::UnsynchronizedTiming},
         {"work", Module ? "forward" : "backward"},
         {"module", Module ? recipe::describeModule(api::calledModule(Module),
                                                    nullptr, Ctx)
                           : nlohmann::json(nullptr)},
         {"input",
          Module ? recipe::describeInput(api::moduleInput(Module), Flow, Ctx)
                 : nlohmann::json(nullptr)}});
  }
}

} // namespace torchlint
