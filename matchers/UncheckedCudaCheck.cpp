#include "UncheckedCudaCheck.h"

#include "CudaGuards.h"
#include "TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo UncheckedCudaCheck::Info = {
    "torch-unchecked-cuda",
    "CUDA is used without checking that it is available",
    "Reports torch::kCUDA, torch::Device(\"cuda\") and .cuda() reached on a "
    "path that never checked torch::cuda::is_available() (or an equivalent "
    "such as torch::cuda::device_count() > 0). On a machine without a usable "
    "GPU, or with a CPU-only build of libtorch, the program aborts there "
    "instead of falling back to the CPU. A check in the same function, an "
    "early return when CUDA is missing, or a check in every caller counts.",
    Level::Warning,
    /*OffersFixIts=*/false,
};

namespace {
AST_MATCHER(Expr, isCudaLiteral) {
  std::optional<api::DeviceLiteral> L = api::asDeviceLiteral(&Node);
  return L && L->Kind == api::DeviceKind::CUDA;
}

/// A literal that is only compared with (device.type() == torch::kCUDA, a
/// switch case) selects nothing on the GPU.
bool isOnlyCompared(const Expr *E, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*E);
  for (unsigned Steps = 0; Steps < 8; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return false;
    Node = Parents[0];
    if (const auto *Binary = Node.get<BinaryOperator>())
      return Binary->isComparisonOp();
    if (const auto *Op = Node.get<CXXOperatorCallExpr>())
      return Op->getOperator() == OO_EqualEqual ||
             Op->getOperator() == OO_ExclaimEqual;
    if (Node.get<CaseStmt>())
      return true;
    const auto *Parent = Node.get<Expr>();
    if (!Parent || !(isa<ImplicitCastExpr>(Parent) ||
                     isa<CXXConstructExpr>(Parent) ||
                     isa<MaterializeTemporaryExpr>(Parent) ||
                     isa<ParenExpr>(Parent) || isa<ConstantExpr>(Parent)))
      return false;
  }
  return false;
}
} // namespace

void UncheckedCudaCheck::registerMatchers(MatchFinder *Finder) {
  // The kind itself: torch::kCUDA, c10::DeviceType::CUDA.
  Finder->addMatcher(declRefExpr(isCudaLiteral(),
                                 unless(isInTemplateInstantiation()))
                         .bind("literal"),
                     this);
  // A device named by a string: torch::Device("cuda:0").
  Finder->addMatcher(cxxConstructExpr(isCudaLiteral(),
                                      hasArgument(0, hasDescendant(stringLiteral())),
                                      unless(isInTemplateInstantiation()))
                         .bind("literal"),
                     this);
  Finder->addMatcher(
      cxxMemberCallExpr(callee(cxxMethodDecl(hasName("cuda"))),
                        on(hasType(cxxRecordDecl(hasAnyName(
                            "::at::Tensor", "::at::TensorBase")))),
                        unless(isInTemplateInstantiation()))
          .bind("cuda-call"),
      this);
}

void UncheckedCudaCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  CudaGuards &Guards = context().cudaGuards(Ctx);
  if (const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("cuda-call")) {
    if (Guards.isGuarded(Call))
      return;
    const auto *Member = dyn_cast<MemberExpr>(Call->getCallee());
    SourceRange Range = Member ? SourceRange(Member->getMemberLoc(),
                                             Call->getEndLoc())
                               : Call->getSourceRange();
    report(Ctx, Range,
           "'.cuda()' is called without checking "
           "'torch::cuda::is_available()' first; on a machine without a "
           "usable GPU, or with a CPU-only libtorch, the program aborts here");
    return;
  }
  const auto *Literal = Result.Nodes.getNodeAs<Expr>("literal");
  std::optional<api::DeviceLiteral> L = api::asDeviceLiteral(Literal);
  if (!L || !L->Spelling)
    return;
  if (isOnlyCompared(Literal, Ctx) || Guards.isGuarded(Literal) ||
      !Reported.insert(L->Spelling).second)
    return;
  std::string Text = api::sourceText(L->Spelling, Ctx);
  if (Text.empty())
    Text = "CUDA";
  report(Ctx, L->Spelling->getSourceRange(),
         "'" + Text +
             "' is used without checking 'torch::cuda::is_available()' "
             "first; on a machine without a usable GPU, or with a CPU-only "
             "libtorch, the program aborts here");
}

} // namespace torchlint
