#include "rules/CudaVisibleDevicesInCodeCheck.h"

#include "analysis/CudaStart.h"
#include "matchers/EnvironmentApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo CudaVisibleDevicesInCodeCheck::Info = {
    "torch-cuda-visible-devices-in-code",
    "CudaVisibleDevicesInCode",
    "CUDA_VISIBLE_DEVICES is set where it has no effect, or hides every GPU",
    Level::Warning,
    /*OffersFixIts=*/false,
    "correctness,gpu,libtorch",
    "high",
};

void CudaVisibleDevicesInCodeCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(api::environmentSetting().bind("setenv"), this);
}

void CudaVisibleDevicesInCodeCheck::check(
    const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("setenv");
  std::optional<api::EnvironmentSetting> Setting =
      api::asEnvironmentSetting(Call);
  if (!Setting || Setting->Name != "CUDA_VISIBLE_DEVICES")
    return;

  DeviceFlow &Flow = context().deviceFlow(Ctx);
  if (const Expr *Init = cudaStartedBefore(Call, Flow, context().userCode())) {
    report(Ctx, Call->getSourceRange(),
           "'CUDA_VISIBLE_DEVICES' is set after CUDA was initialised, so the "
           "change is silently ignored and the program keeps the GPUs it saw "
           "first")
        .note(Init->getSourceRange(), "CUDA is initialised here")
        .remedy("CUDA reads it once, at initialisation: set it before the "
                "first CUDA call, or in the environment that starts the "
                "program");
    return;
  }
  if (Setting->Value && Setting->Value->empty())
    report(Ctx, Call->getSourceRange(),
           "'CUDA_VISIBLE_DEVICES' is set to an empty string, which hides "
           "every GPU, so the program runs on the CPU")
        .remedy("to choose GPUs, list their indices (\"0,1\")");
}

} // namespace torchlint
