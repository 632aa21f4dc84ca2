#include "rules/CudaVisibleDevicesInCodeCheck.h"

#include "analysis/DeviceFlow.h"
#include "analysis/HostCopies.h"
#include "api/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
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

namespace {
constexpr llvm::StringLiteral Variable = "CUDA_VISIBLE_DEVICES";

std::optional<std::string> stringValue(const Expr *E) {
  const auto *Literal =
      dyn_cast_or_null<StringLiteral>(E ? E->IgnoreParenCasts() : nullptr);
  if (!Literal || Literal->getCharByteWidth() != 1)
    return std::nullopt;
  return Literal->getString().str();
}

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
} // namespace

void CudaVisibleDevicesInCodeCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName("::setenv", "::putenv",
                                              "::_putenv", "::_putenv_s"))))
          .bind("setenv"),
      this);
}

bool CudaVisibleDevicesInCodeCheck::initialisesCuda(const Expr *E,
                                                    DeviceFlow &Flow) {
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
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
  }
  return false;
}

const Expr *CudaVisibleDevicesInCodeCheck::cudaInitialisationIn(
    const Stmt *S, SourceLocation Limit, DeviceFlow &Flow, unsigned Depth) {
  if (!S)
    return nullptr;
  const SourceManager &SM = Flow.astContext().getSourceManager();
  CallCollector Collector;
  Collector.TraverseStmt(const_cast<Stmt *>(S));
  for (const Expr *Call : Collector.Calls) {
    if (Limit.isValid() &&
        !SM.isBeforeInTranslationUnit(Call->getEndLoc(), Limit))
      continue;
    if (initialisesCuda(Call, Flow))
      return Call;
    // Inside the program's own functions called there.
    const auto *Plain = dyn_cast<CallExpr>(Call);
    const FunctionDecl *Callee = Plain ? Plain->getDirectCallee() : nullptr;
    const FunctionDecl *Definition = nullptr;
    if (Depth < MaxDepth && Callee && Callee->hasBody(Definition) &&
        context().userCode().isAnalyzed(Definition->getLocation(), SM))
      if (cudaInitialisationIn(Definition->getBody(), SourceLocation(), Flow,
                               Depth + 1))
        return Call;
  }
  return nullptr;
}

const Expr *CudaVisibleDevicesInCodeCheck::cudaInitialisedBefore(
    const Stmt *Site, DeviceFlow &Flow, unsigned Depth) {
  const FunctionDecl *FD = Flow.index().enclosingFunction(Site);
  if (!FD)
    return nullptr;
  if (const Expr *Init =
          cudaInitialisationIn(FD->getBody(), Site->getBeginLoc(), Flow, 0))
    return Init;
  if (Depth >= MaxDepth)
    return nullptr;
  std::optional<llvm::ArrayRef<DeviceFlow::CallSite>> Sites =
      Flow.index().callSites(FD->getCanonicalDecl());
  if (!Sites)
    return nullptr;
  for (const DeviceFlow::CallSite &Caller : *Sites)
    if (const Expr *Init = cudaInitialisedBefore(Caller.Call, Flow, Depth + 1))
      return Init;
  return nullptr;
}

void CudaVisibleDevicesInCodeCheck::check(
    const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("setenv");
  llvm::StringRef Callee = Call->getDirectCallee()->getName();
  std::optional<std::string> Value;
  if (Callee == "putenv" || Callee == "_putenv") {
    std::optional<std::string> Setting =
        Call->getNumArgs() == 1 ? stringValue(Call->getArg(0)) : std::nullopt;
    if (!Setting ||
        !llvm::StringRef(*Setting).starts_with(Variable.str() + "="))
      return;
    Value = Setting->substr(Variable.size() + 1);
  } else {
    if (Call->getNumArgs() < 2 ||
        stringValue(Call->getArg(0)) != Variable.str())
      return;
    Value = stringValue(Call->getArg(1));
  }

  DeviceFlow &Flow = context().deviceFlow(Ctx);
  if (const Expr *Init = cudaInitialisedBefore(Call, Flow, 0)) {
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
  if (Value && Value->empty())
    report(Ctx, Call->getSourceRange(),
           "'CUDA_VISIBLE_DEVICES' is set to an empty string, which hides "
           "every GPU, so the program runs on the CPU")
        .remedy("to choose GPUs, list their indices (\"0,1\")");
}

} // namespace torchlint
