#include "rules/LaunchBlockingInCodeCheck.h"

#include "analysis/CudaStart.h"
#include "analysis/Loops.h"
#include "common/Scenarios.h"
#include "matchers/EnvironmentApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

// The prose of the rule is its docs page,
// docs/rules/torch-launch-blocking-in-code.md.
const RuleInfo LaunchBlockingInCodeCheck::Info = {
    "torch-launch-blocking-in-code",
    "LaunchBlockingInCode",
    "the program sets CUDA_LAUNCH_BLOCKING itself, so every kernel launch "
    "waits for the GPU",
    Level::Warning,
    /*OffersFixIts=*/true,
    "performance,gpu,libtorch",
    "high",
};

void LaunchBlockingInCodeCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(api::environmentSetting().bind("setenv"), this);
}

void LaunchBlockingInCodeCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("setenv");
  std::optional<api::EnvironmentSetting> Setting =
      api::asEnvironmentSetting(Call);
  // CUDA takes any value but 0 for on; a value chosen at run time is a
  // choice, not a leftover.
  if (!Setting || Setting->Name != "CUDA_LAUNCH_BLOCKING" || !Setting->Value ||
      Setting->Value->empty() || *Setting->Value == "0")
    return;

  // The switch does nothing after CUDA has started, whoever asked for it: a
  // debug option that sets it there does not do what it says either.
  if (const Expr *Start = cudaStartedBefore(Call, context().deviceFlow(Ctx),
                                            context().userCode())) {
    report(Ctx, Call->getSourceRange(),
           "'CUDA_LAUNCH_BLOCKING' is set after CUDA was initialised, so it "
           "has no effect and kernel launches stay asynchronous")
        .note(Start->getSourceRange(), "CUDA is initialised here")
        .remedy("CUDA reads it once, at initialisation: to debug with "
                "synchronous launches, set it in the environment of that run "
                "('CUDA_LAUNCH_BLOCKING=1 ./program')");
    return;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  if (context().inDebugOnlyCode(Call->getBeginLoc(), SM) || inBranch(Call, Ctx))
    return;
  FindingBuilder Finding = report(
      Ctx, Call->getSourceRange(),
      "'CUDA_LAUNCH_BLOCKING' is set to '" + *Setting->Value +
          "', so every kernel launch waits until the GPU has run it and the "
          "CPU can no longer queue work ahead of the GPU");
  Finding.remedy("it is a debugging aid: set it in the environment of a "
                 "debugging run, or keep it to debug builds with "
                 "'#ifndef NDEBUG' ... '#endif'");
  Finding.recipe({{"scenario", scenario::LaunchBlockingInCode}});
  CharSourceRange Lines = wholeLinesOf(Call, Ctx);
  if (Lines.isValid()) {
    Finding.insertBefore(Lines.getBegin(), "\n#ifndef NDEBUG");
    Finding.insertBefore(Lines.getEnd(), "\n#endif");
  }
}

} // namespace torchlint
