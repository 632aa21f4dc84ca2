#include "rules/DataParallelPerStepCheck.h"

#include "analysis/Loops.h"
#include "common/Scenarios.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo DataParallelPerStepCheck::Info = {
    "torch-data-parallel-per-step",
    "DataParallelPerStep",
    "data_parallel replicates the whole model on every step",
    Level::Note,
    /*OffersFixIts=*/false,
    "performance,gpu,libtorch",
    "medium",
    /*Options=*/{},
    /*EnabledByDefault=*/false,
};

void DataParallelPerStepCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(callExpr(callee(functionDecl(hasName(
                                  "::torch::nn::parallel::data_parallel"))))
                         .bind("call"),
                     this);
}

void DataParallelPerStepCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  if (api::replicationOf(Call) != api::Replication::DataParallel)
    return;
  // On one device data_parallel replicates nothing.
  api::DeviceCount Devices = api::replicationDevices(Call);
  if (Devices == api::DeviceCount::One)
    return;
  ASTContext &Ctx = *Result.Context;
  Repetition Repeated = repetitionOf(Call, context().deviceFlow(Ctx));
  if (!Repeated)
    return;

  const Expr *Module = Call->getArg(0)->IgnoreImplicit();
  llvm::StringRef Text = Lexer::getSourceText(
      CharSourceRange::getTokenRange(Module->getSourceRange()),
      Ctx.getSourceManager(), Ctx.getLangOpts());
  std::string Name = Text.empty() || Text.size() > 40 || Text.contains('\n')
                         ? "the module"
                         : "'" + Text.str() + "'";
  FindingBuilder Finding = report(
      Ctx, Call->getSourceRange(),
      "data_parallel copies every parameter of " + Name +
          " to each device on every call, here on every iteration, so each "
          "step first replicates the whole model across the GPUs");
  if (Repeated.Call)
    Finding.note(Repeated.Call->getSourceRange(),
                 "called on every iteration of the loop here");
  else
    Finding.note(SourceRange(Repeated.Loop->getBeginLoc()),
                 "the loop that calls it on every iteration");
  Finding.remedy(
      "the C++ frontend has no DistributedDataParallel: keep one replica per "
      "GPU, each stepped by a thread or process of its own, and average the "
      "gradients with torch::cuda::nccl::all_reduce or c10d; or measure one "
      "GPU against several first");
  Finding.recipe(
      {{"scenario", scenario::DataParallelPerStep},
       {"devices",
        Devices == api::DeviceCount::AllVisible ? "all-visible" : "several"}});
}

} // namespace torchlint
