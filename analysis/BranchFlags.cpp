#include "analysis/BranchFlags.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/CFG.h"

#include <algorithm>

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

bool StableFlags::isStable(const VarDecl *Var) {
  auto [Entry, New] = Known.try_emplace(Var, false);
  if (!New)
    return Entry->second;
  if (!Var->getType()->isBooleanType() || Var->hasGlobalStorage())
    return false;
  const auto *Owner =
      dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
  if (!Owner || !Owner->hasBody())
    return false;
  // Any write, or a way to write later (its address, a non-const
  // reference), makes the flag a value of the path, not a constant of it.
  auto Ref = declRefExpr(to(varDecl(equalsNode(Var))));
  auto Writes = stmt(anyOf(
      binaryOperator(isAssignmentOperator(), hasLHS(ignoringParens(Ref))),
      unaryOperator(hasOperatorName("&"), hasUnaryOperand(ignoringParens(Ref))),
      declStmt(has(varDecl(
          hasType(lValueReferenceType(pointee(unless(isConstQualified())))),
          hasInitializer(ignoringParens(Ref))))),
      callExpr(forEachArgumentWithParam(
          ignoringParens(Ref), parmVarDecl(hasType(lValueReferenceType(
                                   pointee(unless(isConstQualified())))))))));
  bool Written =
      !match(findAll(stmt(Writes)), *Owner->getBody(), Owner->getASTContext())
           .empty();
  Known[Var] = !Written;
  return !Written;
}

std::optional<FlagValue> flagOnEdge(const CFGBlock &B, unsigned Succ,
                                    StableFlags &Stable) {
  if (B.succ_size() != 2 || Succ > 1)
    return std::nullopt;
  const auto *Cond = dyn_cast_or_null<Expr>(B.getTerminatorCondition());
  if (!Cond)
    return std::nullopt;
  bool Negated = false;
  Cond = Cond->IgnoreParenImpCasts();
  while (const auto *Not = dyn_cast<UnaryOperator>(Cond)) {
    if (Not->getOpcode() != UO_LNot)
      return std::nullopt;
    Negated = !Negated;
    Cond = Not->getSubExpr()->IgnoreParenImpCasts();
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(Cond);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Stable.isStable(Var))
    return std::nullopt;
  // The first successor of a branch is its true arm.
  return FlagValue{Var, (Succ == 0) != Negated};
}

} // namespace torchlint
