#include "rules/DiscardedResultCheck.h"

#include "common/Scenarios.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

// The prose of the rule is its docs page, docs/rules/torch-discarded-result.md.
const RuleInfo DiscardedResultCheck::Info = {
    "torch-discarded-result",
    "DiscardedResult",
    "the result of a tensor operation is discarded, so the operation changes "
    "nothing",
    Level::Warning,
    /*OffersFixIts=*/true,
    "correctness,gpu,libtorch",
    "high",
};

namespace {
/// A call of a tensor operation: a method of at::Tensor, or a function of
/// libtorch's tensor namespaces (at, torch, torch::linalg, torch::fft,
/// torch::special) that returns a tensor.
struct TensorOperation {
  llvm::StringRef Name;
  /// The tensor it works on: the object of a method, the one tensor argument
  /// of a function (null when it has several).
  const Expr *Operand = nullptr;
  /// It returns a new tensor (by value) rather than its operand.
  bool ReturnsNew = false;
  /// It changes its operand (`div_`, `clamp_`).
  bool InPlace = false;
  bool IsMethod = false;
  const CallExpr *Call = nullptr;
};

/// Namespaces whose functions are tensor operations; torch::nn, torch::optim,
/// torch::jit and the others hold modules, optimizers and settings.
bool inTensorNamespace(const FunctionDecl *FD) {
  const auto *NS = dyn_cast<NamespaceDecl>(FD->getDeclContext());
  if (NS && NS->getDeclName().isIdentifier() &&
      llvm::is_contained({"linalg", "fft", "special"}, NS->getName()))
    NS = dyn_cast<NamespaceDecl>(NS->getDeclContext());
  return NS && NS->getDeclName().isIdentifier() &&
         (NS->getName() == "at" || NS->getName() == "torch") &&
         isa<TranslationUnitDecl>(NS->getDeclContext());
}

std::optional<TensorOperation> asTensorOperation(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(api::ignoreWrappers(E));
  if (!Call || isa<CXXOperatorCallExpr>(Call))
    return std::nullopt;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() ||
      !api::isTensor(FD->getReturnType()))
    return std::nullopt;
  TensorOperation Op;
  Op.Call = Call;
  Op.Name = FD->getName();
  Op.ReturnsNew = !FD->getReturnType()->isReferenceType();
  Op.InPlace = Op.Name.ends_with("_");
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    if (!api::isTensorMethod(Member->getMethodDecl()))
      return std::nullopt;
    Op.IsMethod = true;
    Op.Operand = Member->getImplicitObjectArgument();
    return Op;
  }
  if (isa<CXXMethodDecl>(FD) || !inTensorNamespace(FD) ||
      api::isFactoryFunction(FD) || api::isLikeFactory(FD))
    return std::nullopt;
  unsigned Tensors = 0;
  for (const Expr *Arg : Call->arguments())
    if (api::isTensor(Arg->getType()) && Tensors++ == 0)
      Op.Operand = Arg;
  // Of `torch::add(a, b)` neither is the one the author meant to change; an
  // in-place function changes its first.
  if (Tensors > 1 && !Op.InPlace)
    Op.Operand = nullptr;
  return Op;
}

/// E is evaluated as a statement of its own (or as the left of a comma, or
/// a for loop's increment): its value goes nowhere.
bool discarded(const Expr *E, ASTContext &Ctx) {
  const Stmt *Child = E;
  for (;;) {
    const DynTypedNodeList Parents = Ctx.getParents(*Child);
    const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!Parent)
      return false;
    if (isa<ExprWithCleanups, CXXBindTemporaryExpr, MaterializeTemporaryExpr,
            ImplicitCastExpr, ParenExpr, ConstantExpr>(Parent)) {
      Child = Parent;
      continue;
    }
    if (isa<CompoundStmt, SwitchCase, LabelStmt, AttributedStmt>(Parent))
      return true;
    if (const auto *If = dyn_cast<IfStmt>(Parent))
      return Child == If->getThen() || Child == If->getElse();
    if (const auto *For = dyn_cast<ForStmt>(Parent))
      return Child == For->getBody() || Child == For->getInc();
    if (const auto *While = dyn_cast<WhileStmt>(Parent))
      return Child == While->getBody();
    if (const auto *Do = dyn_cast<DoStmt>(Parent))
      return Child == Do->getBody();
    if (const auto *Range = dyn_cast<CXXForRangeStmt>(Parent))
      return Child == Range->getBody();
    if (const auto *Comma = dyn_cast<BinaryOperator>(Parent))
      return Comma->isCommaOp() && Child == Comma->getLHS();
    return false;
  }
}

/// A tensor variable or member the fix-it can assign to: not const, and not
/// a range-for's copy of an element (assigning that changes nothing either).
bool assignable(const Expr *Root) {
  if (!Root || Root->getType().isConstQualified() ||
      !api::isTensor(Root->getType()))
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Root)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    return Var &&
           !(Var->isCXXForRangeDecl() && !Var->getType()->isReferenceType());
  }
  return isa<MemberExpr>(Root);
}

/// A copy to another device: cuda(), cpu(), or a to() given a device, options
/// or another tensor; `x.to(torch::kHalf)` only converts.
bool moves(const TensorOperation &Op) {
  if (!Op.IsMethod)
    return false;
  if (Op.Name == "cuda" || Op.Name == "cpu")
    return true;
  return Op.Name == "to" &&
         llvm::any_of(Op.Call->arguments(), [](const Expr *Arg) {
           QualType T = Arg->getType();
           return !isa<CXXDefaultArgExpr>(Arg) &&
                  (api::isDeviceLike(T) || api::isOptionalDevice(T) ||
                   api::isTensorOptions(T) || api::isTensor(T));
         });
}

/// The class declares a method of that name.
bool declares(const CXXRecordDecl *Class, llvm::StringRef Name,
              ASTContext &Ctx) {
  return Class && !Class->lookup(&Ctx.Idents.get(Name)).empty();
}
} // namespace

void DiscardedResultCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(hasType(hasUnqualifiedDesugaredType(recordType(
                   hasDeclaration(cxxRecordDecl(matchers::tensorClass()))))))
          .bind("call"),
      this);
}

void DiscardedResultCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  std::optional<TensorOperation> Outer = asTensorOperation(Call);
  if (!Outer || !discarded(Call, Ctx))
    return;

  // The operation whose new tensor is lost: the statement's own, or, for an
  // in-place operation, the one that made the copy it changes.
  std::optional<TensorOperation> Lost = Outer;
  if (Outer->InPlace) {
    Lost = asTensorOperation(Outer->Operand);
    if (!Lost || Lost->InPlace || !Lost->ReturnsNew ||
        (Lost->IsMethod && api::isViewMethod(Lost->Name)))
      return;
  } else if (!Outer->ReturnsNew) {
    return;
  }

  // Down the chain to the tensor it started from, noting a move on the way.
  std::optional<TensorOperation> Move;
  const Expr *Root = Lost->Operand;
  for (std::optional<TensorOperation> Op = Lost; Op;) {
    if (!Move && moves(*Op))
      Move = Op;
    Root = Op->Operand;
    Op = asTensorOperation(Root);
    if (Op && (Op->InPlace || !Op->ReturnsNew))
      break;
  }
  Root = Root ? api::ignoreWrappers(Root) : nullptr;
  // A fresh tensor moved or computed and dropped is a warm-up (of CUDA, of
  // a kernel), as a factory alone is.
  if (const auto *Start = dyn_cast_or_null<CallExpr>(Root))
    if (api::isFactoryFunction(Start->getDirectCallee()) ||
        api::isLikeFactory(Start->getDirectCallee()))
      return;
  if (Root && !isa<DeclRefExpr, MemberExpr>(Root))
    Root = nullptr;
  std::string Subject =
      Root ? "'" + api::sourceText(Root, Ctx) + "'" : "its operand";

  std::string Message;
  if (Outer->InPlace)
    Message = "'" + Outer->Name.str() + "' changes the copy that '" +
              Lost->Name.str() + "' returns, which is then discarded, so " +
              Subject +
              (Move ? " stays on its device, unchanged" : " is left unchanged");
  else if (Move)
    Message = "the copy that '" + Move->Name.str() +
              "' returns on the new device is discarded, so " + Subject +
              " stays on its device";
  else
    Message = "the result of '" + Outer->Name.str() + "' is discarded, so " +
              Subject + " is left unchanged and the work is wasted";
  FindingBuilder Finding = report(Ctx, Call->getSourceRange(), Message);
  if (Move)
    Finding.level(Level::Error);

  const bool FixIt = assignable(Root);
  std::string Assign = FixIt ? "'" + api::sourceText(Root, Ctx) + " = " +
                                   api::sourceText(Call, Ctx) + "'"
                             : "to a variable";
  if (Move)
    Finding.remedy("a tensor's '" + Move->Name.str() +
                   "', unlike a module's, returns a new tensor and leaves its "
                   "operand where it is: assign the result, " +
                   Assign);
  else if (!Outer->InPlace && Outer->IsMethod &&
           declares(cast<CXXMemberCallExpr>(Call)->getMethodDecl()->getParent(),
                    (Outer->Name + "_").str(), Ctx))
    Finding.remedy("assign the result, " + Assign + ", or use the in-place '" +
                   Outer->Name.str() + "_'");
  else
    Finding.remedy("assign the result, " + Assign);
  if (FixIt)
    Finding.insertBefore(Call->getBeginLoc(),
                         api::sourceText(Root, Ctx) + " = ");
  Finding.recipe({{"scenario", scenario::DiscardedResult},
                  {"operation", Lost->Name.str()},
                  {"moves", Move.has_value()}});
}

} // namespace torchlint
