#include "analysis/ReachingValues.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace torchlint {
namespace {

bool refersTo(const Expr *E, const VarDecl *Var) {
  const auto *Ref =
      E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  return Ref && Ref->getDecl() == Var;
}

/// Var is handed to code that may assign it: a non-const reference or
/// pointer parameter, `&Var`, a capture by reference.
class EscapeFinder : public RecursiveASTVisitor<EscapeFinder> {
public:
  explicit EscapeFinder(const VarDecl *Var) : Var(Var) {}
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    unsigned Shift =
        isa<CXXOperatorCallExpr>(Call) && isa_and_nonnull<CXXMethodDecl>(FD)
            ? 1
            : 0;
    for (unsigned I = Shift; I < Call->getNumArgs(); ++I) {
      if (!refersTo(Call->getArg(I), Var))
        continue;
      if (!FD || I - Shift >= FD->getNumParams()) {
        Escapes |= !FD;
        continue;
      }
      QualType Param = FD->getParamDecl(I - Shift)->getType();
      if (Param->isReferenceType() &&
          !Param.getNonReferenceType().isConstQualified())
        Escapes = true;
    }
    return !Escapes;
  }
  bool VisitUnaryOperator(UnaryOperator *Op) {
    if (Op->getOpcode() == UO_AddrOf && refersTo(Op->getSubExpr(), Var))
      Escapes = true;
    return !Escapes;
  }
  bool VisitLambdaExpr(LambdaExpr *Lambda) {
    for (const LambdaCapture &Capture : Lambda->captures())
      if (Capture.capturesVariable() && Capture.getCapturedVar() == Var &&
          Capture.getCaptureKind() == LCK_ByRef)
        Escapes = true;
    return !Escapes;
  }
  const VarDecl *Var;
  bool Escapes = false;
};

/// The value S gives Var, when S defines it; Found is set for a definition
/// without a value.
const Expr *definedValue(const Stmt *S, const VarDecl *Var, bool &Found) {
  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    for (const clang::Decl *D : Decl->decls())
      if (D == Var) {
        Found = true;
        return Var->getInit();
      }
    return nullptr;
  }
  if (const auto *Op = dyn_cast<BinaryOperator>(S)) {
    if (Op->getOpcode() == BO_Assign && refersTo(Op->getLHS(), Var)) {
      Found = true;
      return Op->getRHS();
    }
    return nullptr;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
        refersTo(Op->getArg(0), Var)) {
      Found = true;
      return Op->getArg(1);
    }
  return nullptr;
}

class AssignmentFinder : public RecursiveASTVisitor<AssignmentFinder> {
public:
  explicit AssignmentFinder(const VarDecl *Var) : Var(Var) {}
  bool VisitStmt(Stmt *S) {
    bool Defines = false;
    if (!isa<DeclStmt>(S))
      definedValue(S, Var, Defines);
    Found |= Defines;
    return !Found;
  }
  const VarDecl *Var;
  bool Found = false;
};

} // namespace

bool neverAssigned(const VarDecl *Var, const FunctionDecl *FD) {
  const FunctionDecl *Definition = nullptr;
  if (!Var || !FD || !FD->hasBody(Definition))
    return false;
  Stmt *Body = Definition->getBody();
  EscapeFinder Escapes(Var);
  Escapes.TraverseStmt(Body);
  AssignmentFinder Assignments(Var);
  Assignments.TraverseStmt(Body);
  return !Escapes.Escapes && !Assignments.Found;
}

std::optional<llvm::SmallVector<const Expr *, 2>>
reachingValues(const VarDecl *Var, const Stmt *Use, FunctionCfgCache &Cfgs) {
  if (!Var || !Var->hasLocalStorage() || isa<ParmVarDecl>(Var))
    return std::nullopt;
  const FunctionCfg *Cfg = Cfgs.of(Use);
  if (!Cfg)
    return std::nullopt;
  EscapeFinder Escapes(Var);
  Escapes.TraverseStmt(const_cast<Stmt *>(Cfg->Function->getBody()));
  if (Escapes.Escapes)
    return std::nullopt;
  std::optional<FunctionCfg::Place> From = Cfg->placeOf(Use, Cfgs.astContext());
  if (!From)
    return std::nullopt;

  llvm::SmallVector<const Expr *, 2> Values;
  llvm::DenseSet<const CFGBlock *> Entered;
  // Blocks to scan backwards from an element (exclusive).
  llvm::SmallVector<std::pair<const CFGBlock *, unsigned>, 8> Work;
  Work.push_back({Cfg->Blocks[From->Block], From->Element});
  while (!Work.empty()) {
    auto [Block, End] = Work.pop_back_val();
    bool Defined = false;
    for (unsigned I = End; I-- > 0 && !Defined;) {
      std::optional<CFGStmt> Element = (*Block)[I].getAs<CFGStmt>();
      if (!Element)
        continue;
      const Expr *Value = definedValue(Element->getStmt(), Var, Defined);
      if (!Defined)
        continue;
      if (!Value)
        return std::nullopt;
      if (!llvm::is_contained(Values, Value))
        Values.push_back(Value);
    }
    if (Defined)
      continue;
    if (Block == &Cfg->Graph->getEntry() || Block->pred_empty())
      return std::nullopt;
    for (const CFGBlock::AdjacentBlock &Pred : Block->preds())
      if (const CFGBlock *P = Pred.getReachableBlock())
        if (Entered.insert(P).second)
          Work.push_back({P, P->size()});
  }
  if (Values.empty())
    return std::nullopt;
  return Values;
}

llvm::SmallVector<const DeclRefExpr *, 8> referencesTo(const VarDecl *Var,
                                                       const Stmt *Root) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *Var;
    llvm::SmallVector<const DeclRefExpr *, 8> Found;
    bool VisitDeclRefExpr(DeclRefExpr *Ref) {
      if (Ref->getDecl() == Var)
        Found.push_back(Ref);
      return true;
    }
  } Search;
  Search.Var = Var;
  if (Root)
    Search.TraverseStmt(const_cast<Stmt *>(Root));
  return Search.Found;
}

} // namespace torchlint
