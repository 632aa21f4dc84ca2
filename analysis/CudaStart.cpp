#include "analysis/CudaStart.h"

#include "analysis/DeviceFlow.h"
#include "analysis/HostCopies.h"
#include "api/TorchApi.h"
#include "core/UserCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace torchlint {
namespace {
class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  bool VisitCallExpr(CallExpr *Call) {
    Calls.push_back(Call);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    Calls.push_back(Construct);
    return true;
  }
  std::vector<const Expr *> Calls;
};

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

/// The first expression in S (and the functions it calls) that starts CUDA,
/// among those that end before Limit when Limit is valid.
const Expr *cudaStartIn(const Stmt *S, SourceLocation Limit, DeviceFlow &Flow,
                        const UserCode &Code, unsigned Depth) {
  if (!S)
    return nullptr;
  const SourceManager &SM = Flow.astContext().getSourceManager();
  CallCollector Collector;
  Collector.TraverseStmt(const_cast<Stmt *>(S));
  for (const Expr *Call : Collector.Calls) {
    if (Limit.isValid() &&
        !SM.isBeforeInTranslationUnit(Call->getEndLoc(), Limit))
      continue;
    if (startsCuda(Call, Flow))
      return Call;
    // Inside the program's own functions called there.
    const auto *Plain = dyn_cast<CallExpr>(Call);
    const FunctionDecl *Callee = Plain ? Plain->getDirectCallee() : nullptr;
    const FunctionDecl *Definition = nullptr;
    if (Depth < MaxDepth && Callee && Callee->hasBody(Definition) &&
        Code.isAnalyzed(Definition->getLocation(), SM))
      if (cudaStartIn(Definition->getBody(), SourceLocation(), Flow, Code,
                      Depth + 1))
        return Call;
  }
  return nullptr;
}

const Expr *cudaStartedBefore(const Stmt *Site, DeviceFlow &Flow,
                              const UserCode &Code, unsigned Depth) {
  const FunctionDecl *FD = Flow.index().enclosingFunction(Site);
  if (!FD)
    return nullptr;
  if (const Expr *Start =
          cudaStartIn(FD->getBody(), Site->getBeginLoc(), Flow, Code, 0))
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
