#include "rules/LossKeepsGraphCheck.h"

#include "analysis/GradModeFlow.h"
#include "analysis/Loops.h"
#include "common/Scenarios.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo LossKeepsGraphCheck::Info = {
    "torch-loss-keeps-graph",
    "LossKeepsGraph",
    "a tensor outside a training loop collects each iteration's loss with "
    "its autograd graph",
    Level::Warning,
    /*OffersFixIts=*/true,
    "performance,memory,libtorch",
    "high",
};

namespace {

/// The local variable E names, through implicit nodes.
const VarDecl *localNamed(const Expr *E) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(api::ignoreWrappers(E));
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) &&
                 !Var->getType()->isReferenceType()
             ? Var
             : nullptr;
}

/// What S does with tensors that matters here: whether it names Var,
/// and whether it cuts a value off its graph (detach, item, data).
class Uses : public RecursiveASTVisitor<Uses> {
public:
  explicit Uses(const VarDecl *Var) : Var(Var) {}
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    Names |= Ref->getDecl() == Var;
    if (const auto *Local = dyn_cast<VarDecl>(Ref->getDecl()))
      Locals.push_back(Local);
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    static const llvm::StringRef Cutting[] = {"detach", "detach_", "item",
                                              "data", "tolist"};
    if (Method && Method->getDeclName().isIdentifier() &&
        llvm::is_contained(Cutting, Method->getName()))
      Cuts = true;
    return true;
  }
  const VarDecl *Var;
  bool Names = false;
  bool Cuts = false;
  std::vector<const VarDecl *> Locals;
};

Uses usesIn(const Stmt *S, const VarDecl *Var) {
  Uses U(Var);
  U.TraverseStmt(const_cast<Stmt *>(S));
  return U;
}

/// backward() calls in S whose tensor (or arguments) name Var.
class BackwardOf : public RecursiveASTVisitor<BackwardOf> {
public:
  explicit BackwardOf(const VarDecl *Var) : Var(Var) {}
  bool VisitCallExpr(CallExpr *Call) {
    if (!api::isBackwardCall(Call))
      return true;
    const Expr *Tensor = nullptr;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      Tensor = Member->getImplicitObjectArgument();
    bool Names = Tensor && usesIn(Tensor, Var).Names;
    for (const Expr *Arg : Call->arguments())
      Names |= usesIn(Arg, Var).Names;
    if (Names && !Found)
      Found = Call;
    return !Found;
  }
  bool VisitReturnStmt(ReturnStmt *Return) {
    Returned |=
        Return->getRetValue() && usesIn(Return->getRetValue(), Var).Names;
    return true;
  }
  const VarDecl *Var;
  const CallExpr *Found = nullptr;
  bool Returned = false;
};

BackwardOf backwardOf(const Stmt *S, const VarDecl *Var) {
  BackwardOf Finder(Var);
  Finder.TraverseStmt(const_cast<Stmt *>(S));
  return Finder;
}

bool contains(const Stmt *Outer, SourceLocation Loc, const SourceManager &SM) {
  return !SM.isBeforeInTranslationUnit(Loc, Outer->getBeginLoc()) &&
         !SM.isBeforeInTranslationUnit(Outer->getEndLoc(), Loc);
}

} // namespace

void LossKeepsGraphCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      cxxOperatorCallExpr(hasAnyOverloadedOperatorName("+=", "="))
          .bind("operator"),
      this);
  Finder->addMatcher(
      cxxMemberCallExpr(callee(cxxMethodDecl(
                            hasAnyName("add_", "push_back", "emplace_back"))))
          .bind("method"),
      this);
}

void LossKeepsGraphCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();
  const Expr *Site = nullptr;
  const VarDecl *Accumulator = nullptr;
  const Expr *Value = nullptr;
  llvm::StringRef How;
  if (const auto *Op =
          Result.Nodes.getNodeAs<CXXOperatorCallExpr>("operator")) {
    if (Op->getNumArgs() != 2 || !api::isTensor(Op->getArg(0)->getType()))
      return;
    Site = Op;
    Accumulator = localNamed(Op->getArg(0));
    if (Op->getOperator() == OO_PlusEqual) {
      Value = Op->getArg(1);
      How = "+=";
    } else {
      // total = total + loss
      const auto *Sum =
          dyn_cast<CXXOperatorCallExpr>(api::ignoreWrappers(Op->getArg(1)));
      if (!Sum || Sum->getOperator() != OO_Plus || Sum->getNumArgs() != 2)
        return;
      for (unsigned I : {0u, 1u})
        if (Accumulator && localNamed(Sum->getArg(I)) == Accumulator)
          Value = Sum->getArg(1 - I);
      How = "+";
    }
  } else if (const auto *Call =
                 Result.Nodes.getNodeAs<CXXMemberCallExpr>("method")) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    // add_ has a default alpha; only `x.add_(loss)` itself is a sum.
    if (!Method || Call->getNumArgs() < 1 ||
        (Call->getNumArgs() > 1 && !isa<CXXDefaultArgExpr>(Call->getArg(1))))
      return;
    const Expr *Object = Call->getImplicitObjectArgument();
    bool Add = Method->getName() == "add_";
    if (Add ? !api::isTensorMethod(Method, "add_")
            : !api::isTensorSequence(Object->getType()))
      return;
    Site = Call;
    Accumulator = localNamed(Object);
    Value = Call->getArg(0);
    How = Add ? "add_" : "push_back";
  }
  if (!Site || !Accumulator || !Value || !api::isTensor(Value->getType()))
    return;

  // Each iteration of a training loop adds to something that outlives it.
  const Stmt *Loop = enclosingLoop(Site, Ctx);
  if (!Loop || contains(Loop, Accumulator->getLocation(), SM))
    return;
  Uses Added = usesIn(Value, nullptr);
  if (Added.Cuts)
    return;
  // The value is the loss: a local the loop backpropagates.
  const VarDecl *Loss = nullptr;
  const CallExpr *Backward = nullptr;
  for (const VarDecl *Local : Added.Locals)
    if (const CallExpr *B = backwardOf(Loop, Local).Found) {
      Loss = Local;
      Backward = B;
      break;
    }
  if (!Loss)
    return;
  // Off in a no-grad region, and kept on purpose when the accumulator is
  // backpropagated (or returned, for a caller that may).
  if (context().gradModeFlow(Ctx).before(Site).State == GradSetting::Disabled)
    return;
  const FunctionDecl *Function =
      dyn_cast_or_null<FunctionDecl>(Accumulator->getDeclContext());
  if (!Function || !Function->getBody())
    return;
  BackwardOf Later = backwardOf(Function->getBody(), Accumulator);
  if (Later.Found || Later.Returned)
    return;

  std::string Name = Accumulator->getName().str();
  std::string LossName = Loss->getName().str();
  FindingBuilder Finding = report(
      Ctx, Site->getSourceRange(),
      "'" + Name + "' collects '" + LossName +
          "' with its autograd graph, so every iteration's graph stays alive "
          "as long as '" +
          Name + "' and memory grows with each step");
  Finding.note(Accumulator->getSourceRange(),
               "'" + Name + "' is declared here, outside the loop");
  Finding.note(Backward->getSourceRange(),
               "'" + LossName + "' is backpropagated here");
  Finding.remedy("collect '" + LossName +
                 ".detach()'; for a number that is "
                 "only read, a 'double' and '" +
                 LossName + ".item<double>()' keep no tensor at all");
  Finding.recipe({{"scenario", scenario::LossKeepsGraph}, {"how", How}});
  // `.detach()` binds tighter than any operator: an expression that is no
  // name, member or call gets parentheses first.
  const Expr *Written = Value->IgnoreImplicit()->IgnoreParens();
  const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Written);
  bool Postfix = isa<DeclRefExpr>(Written) || isa<MemberExpr>(Written) ||
                 (isa<CallExpr>(Written) &&
                  (!Operator || Operator->getOperator() == OO_Call ||
                   Operator->getOperator() == OO_Subscript));
  if (Postfix) {
    Finding.insertAfter(Written->getEndLoc(), ".detach()");
  } else {
    Finding.insertBefore(Written->getBeginLoc(), "(");
    Finding.insertAfter(Written->getEndLoc(), ").detach()");
  }
}

} // namespace torchlint
