#include "rules/UncheckedCudaCheck.h"

#include "analysis/DeviceFlow.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo UncheckedCudaCheck::Info = {
    "torch-unchecked-cuda",
    "UncheckedCuda",
    "CUDA is used without checking that it is available",
    Level::Warning,
    /*OffersFixIts=*/false,
    "portability,correctness,gpu,libtorch",
    "high",
};

namespace {
AST_MATCHER(CXXMethodDecl, isModuleToMethod) { return api::isModuleTo(&Node); }
AST_MATCHER(FunctionDecl, isTensorFactory) {
  return api::isFactoryFunction(&Node) || api::isLikeFactory(&Node);
}
AST_MATCHER(Expr, namesDevice) { return api::isDeviceLike(Node.getType()); }
AST_MATCHER(Expr, namesOptionalDevice) {
  return api::isOptionalDevice(Node.getType());
}

bool isCudaLiteral(const Expr *E) {
  std::optional<api::DeviceLiteral> Literal = api::asDeviceLiteral(E);
  return Literal && Literal->Kind == api::DeviceKind::CUDA;
}

/// `device.is_cuda()`, `x.is_cuda()`, `device.type() == torch::kCUDA`,
/// `device_type_ == c10::kCUDA`: a test that a device the program already
/// chose is a GPU, not a choice of one.
bool testsForChosenGpu(const Expr *Cond) {
  Cond = api::ignoreWrappers(Cond);
  if (!Cond)
    return false;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Cond))
    if (const CXXMethodDecl *Method = Call->getMethodDecl())
      return Method->getName() == "is_cuda";
  const Expr *Left = nullptr, *Right = nullptr;
  if (const auto *Binary = dyn_cast<BinaryOperator>(Cond)) {
    if (Binary->getOpcode() == BO_LAnd)
      return testsForChosenGpu(Binary->getLHS()) ||
             testsForChosenGpu(Binary->getRHS());
    if (Binary->getOpcode() != BO_EQ)
      return false;
    Left = Binary->getLHS();
    Right = Binary->getRHS();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Cond)) {
    if (Op->getOperator() != OO_EqualEqual || Op->getNumArgs() != 2)
      return false;
    Left = Op->getArg(0);
    Right = Op->getArg(1);
  } else {
    return false;
  }
  // One side names CUDA, the other is the program's own device value.
  return (isCudaLiteral(Left) && !api::asDeviceLiteral(Right)) ||
         (isCudaLiteral(Right) && !api::asDeviceLiteral(Left));
}

/// E runs only where a device the program chose earlier is a GPU: whether
/// CUDA works was settled (and is reported, if unchecked) where it chose.
bool followsAChosenGpu(const Expr *E, ASTContext &Ctx) {
  const Stmt *Child = E;
  for (unsigned Depth = 0; Child && Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*Child);
    if (Parents.empty())
      return false;
    const Stmt *Parent = Parents[0].get<Stmt>();
    if (!Parent)
      return false;
    if (const auto *If = dyn_cast<IfStmt>(Parent))
      if (If->getThen() == Child && testsForChosenGpu(If->getCond()))
        return true;
    if (const auto *Cond = dyn_cast<ConditionalOperator>(Parent))
      if (Cond->getTrueExpr() == Child && testsForChosenGpu(Cond->getCond()))
        return true;
    Child = Parent;
  }
  return false;
}

constexpr const char *Consequence =
    " first, so on a machine without a usable GPU, or with a CPU-only "
    "libtorch, the program aborts here";
constexpr const char *Remedy =
    "check 'torch::cuda::is_available()' and fall back to the CPU";
} // namespace

void UncheckedCudaCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      cxxMemberCallExpr(callee(cxxMethodDecl(hasName("cuda"))),
                        on(hasType(cxxRecordDecl(matchers::tensorClass()))))
          .bind("cuda-call"),
      this);
  // Where a device is used to move or allocate: module->to(d), x.to(d), and
  // factories given a device.
  Finder->addMatcher(
      cxxMemberCallExpr(callee(cxxMethodDecl(isModuleToMethod())),
                        hasArgument(0, expr(namesDevice()).bind("device")))
          .bind("use"),
      this);
  Finder->addMatcher(
      cxxMemberCallExpr(matchers::tensorMethodCall({"to"}),
                        hasArgument(0, expr(namesDevice()).bind("device")))
          .bind("use"),
      this);
  // torch::jit::load(path, torch::kCUDA) moves the module as it loads it.
  Finder->addMatcher(
      callExpr(callee(functionDecl(matchers::isScriptModuleLoadDecl())),
               hasArgument(1, expr(anyOf(namesDevice(), namesOptionalDevice()))
                                  .bind("device")))
          .bind("use"),
      this);
  Finder->addMatcher(
      callExpr(callee(functionDecl(isTensorFactory())),
               forEachArgumentWithParam(expr(namesDevice()).bind("device"),
                                        parmVarDecl()))
          .bind("use"),
      this);
}

void UncheckedCudaCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  DeviceFlow &Flow = context().deviceFlowWithoutGpu(Ctx);

  if (const auto *Call =
          Result.Nodes.getNodeAs<CXXMemberCallExpr>("cuda-call")) {
    if (!Flow.reachable(Call) || followsAChosenGpu(Call, Ctx) ||
        !Reported.insert(Call).second)
      return;
    const auto *Member = dyn_cast<MemberExpr>(Call->getCallee());
    SourceRange Range =
        Member ? SourceRange(Member->getMemberLoc(), Call->getEndLoc())
               : Call->getSourceRange();
    report(Ctx, Range,
           std::string("'.cuda()' is called without checking "
                       "'torch::cuda::is_available()'") +
               Consequence)
        .remedy(Remedy);
    return;
  }

  const auto *Use = Result.Nodes.getNodeAs<Expr>("use");
  const auto *Device = Result.Nodes.getNodeAs<Expr>("device");
  if (!Use || !Device || isa<CXXDefaultArgExpr>(Device))
    return;
  for (const DeviceFact &F : Flow.devicesOf(Device)) {
    if (F.Kind != api::DeviceKind::CUDA || !F.Literal)
      continue;
    // A .cuda() that feeds a device reports itself.
    if (isa<CXXMemberCallExpr>(F.Literal))
      continue;
    if (followsAChosenGpu(F.Literal, Ctx))
      continue;
    if (!Reported.insert(F.Literal).second)
      continue;
    std::string Text = api::sourceText(F.Literal, Ctx);
    if (Text.empty() || Text.size() > 40)
      Text = "CUDA";
    FindingBuilder Finding =
        report(Ctx, F.Literal->getSourceRange(),
               "'" + Text +
                   "' is used without checking 'torch::cuda::is_available()'" +
                   Consequence);
    Finding.remedy(Remedy);
    Finding.flowStep(F.Literal->getSourceRange(), "the GPU is named here");
    Finding.pathNote(Use->getSourceRange(), "the GPU is used here");
  }
}

} // namespace torchlint
