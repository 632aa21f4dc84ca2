#include "analysis/CudaStart.h"

#include "analysis/CallsWithin.h"
#include "analysis/DeviceFlow.h"
#include "analysis/HostCopies.h"
#include "core/UserCode.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace torchlint {
namespace {
constexpr unsigned MaxDepth = 3;

bool startsCuda(const Expr *E, DeviceFlow &Flow) {
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD)
    return false;
  // Every torch::cuda:: query or setting starts the CUDA runtime.
  if (const auto *NS = dyn_cast<NamespaceDecl>(FD->getDeclContext()))
    if (NS->getName() == "cuda" && api::isInTorchNamespace(FD) &&
        !isa<CXXMethodDecl>(FD))
      return true;
  if (std::optional<DeviceCopy> Copy =
          asDeviceCopy(dyn_cast<CXXMemberCallExpr>(Call)))
    return reachesAccelerator(destinationOf(*Copy, Flow));
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    if (api::isModuleTo(Member->getMethodDecl()))
      return reachesAccelerator(Flow.devicesOf(Member->getArg(0)));
  if (api::isFactoryFunction(FD) || api::isLikeFactory(FD))
    for (const Expr *Arg : Call->arguments())
      if (api::isDeviceLike(Arg->getType()) && !isa<CXXDefaultArgExpr>(Arg))
        return reachesAccelerator(Flow.devicesOf(Arg));
  return false;
}

const Expr *cudaStartedBefore(const Stmt *Site, DeviceFlow &Flow,
                              const UserCode &Code, unsigned Depth) {
  const FunctionDecl *FD = Flow.index().enclosingFunction(Site);
  if (!FD)
    return nullptr;
  if (const Expr *Start =
          findCallWithin(
              FD->getBody(), MaxDepth, Code,
              Flow.astContext().getSourceManager(),
              [&Flow](const Expr *Call) { return startsCuda(Call, Flow); },
              Site->getBeginLoc())
              .Call)
    return Start;
  if (Depth >= MaxDepth)
    return nullptr;
  std::optional<llvm::ArrayRef<DeviceFlow::CallSite>> Sites =
      Flow.index().callSites(FD->getCanonicalDecl());
  if (!Sites)
    return nullptr;
  for (const DeviceFlow::CallSite &Caller : *Sites)
    if (const Expr *Start =
            cudaStartedBefore(Caller.Call, Flow, Code, Depth + 1))
      return Start;
  return nullptr;
}
} // namespace

const Expr *cudaStartedBefore(const Stmt *Site, DeviceFlow &Flow,
                              const UserCode &Code) {
  return cudaStartedBefore(Site, Flow, Code, 0);
}

} // namespace torchlint
