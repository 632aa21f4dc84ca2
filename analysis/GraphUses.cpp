#include "analysis/GraphUses.h"

#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;

namespace torchlint {

namespace {
/// Past this many values followed, a result is taken to reach anything.
constexpr unsigned MaxValues = 64;
constexpr unsigned MaxParents = 64;

/// The reads of a local variable in its function, and whether a lambda
/// captures it (its body may use it anywhere).
class VariableReads : public RecursiveASTVisitor<VariableReads> {
public:
  explicit VariableReads(const VarDecl *Var) : Var(Var) {}
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (Ref->getDecl() == Var)
      Reads.push_back(Ref);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    for (const LambdaCapture &Capture : Lambda->captures())
      if (Capture.capturesVariable() && Capture.getCapturedVar() == Var)
        Captured = true;
    return !Captured && RecursiveASTVisitor::TraverseLambdaExpr(Lambda);
  }
  llvm::SmallVector<const DeclRefExpr *, 8> Reads;
  bool Captured = false;

private:
  const VarDecl *Var;
};

/// Child is a statement of Parent (a loop's body, a branch), whose value is
/// dropped.
bool isStatementOf(const Stmt *Parent, const Stmt *Child) {
  if (const auto *If = dyn_cast<IfStmt>(Parent))
    return Child == If->getThen() || Child == If->getElse();
  if (const auto *For = dyn_cast<ForStmt>(Parent))
    return Child == For->getBody() || Child == For->getInc();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Parent))
    return Child == Range->getBody();
  if (const auto *While = dyn_cast<WhileStmt>(Parent))
    return Child == While->getBody();
  if (const auto *Do = dyn_cast<DoStmt>(Parent))
    return Child == Do->getBody();
  return isa<LabelStmt, SwitchCase, AttributedStmt>(Parent);
}

/// `autograd::grad`, `.grad()`, hooks: what reads the graph or its gradients.
bool readsGradients(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return false;
  return llvm::is_contained({"backward", "grad", "retain_grad", "register_hook",
                             "requires_grad_", "set_requires_grad"},
                            FD->getName());
}

class GraphUseFinder {
public:
  explicit GraphUseFinder(ASTContext &Ctx) : Ctx(Ctx) {}

  bool mayBeUsed(const Stmt *Result) {
    Pending.push_back(Result);
    for (unsigned Followed = 0; !Pending.empty(); ++Followed) {
      if (Followed == MaxValues)
        return true;
      if (usedFrom(Pending.pop_back_val()))
        return true;
    }
    return false;
  }

private:
  /// Climbs from E to where its value goes; true when that may need the
  /// graph.
  bool usedFrom(const Stmt *E) {
    const Stmt *Node = E;
    for (unsigned Steps = 0; Steps < MaxParents; ++Steps) {
      DynTypedNodeList Parents = Ctx.getParents(*Node);
      if (Parents.size() != 1)
        return true;
      if (const auto *Var = Parents[0].get<VarDecl>())
        return Var->getInit() == Node ? follow(Var) : true;
      const auto *Parent = Parents[0].get<Stmt>();
      if (!Parent)
        return true;
      if (isa<CompoundStmt>(Parent) || isStatementOf(Parent, Node))
        return false; // dropped
      if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
              CXXBindTemporaryExpr, ExprWithCleanups, CXXFunctionalCastExpr,
              CXXStaticCastExpr, ConditionalOperator>(Parent)) {
        Node = Parent;
        continue;
      }
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(Parent)) {
        if (!api::isTensor(Construct->getType()))
          return true; // kept by some object
        Node = Parent; // a copy shares the graph
        continue;
      }
      if (isa<MemberExpr>(Parent))
        return methodCalled(cast<MemberExpr>(Parent));
      if (const auto *Call = dyn_cast<CallExpr>(Parent)) {
        std::optional<const Stmt *> Next = argumentOf(Call, Node);
        if (!Next)
          return true;
        if (!*Next)
          return false;
        Node = *Next;
        continue;
      }
      return true; // returned, captured, put in a container or a condition
    }
    return true;
  }

  /// Member is `E.method`, E carrying the graph: true when the call may
  /// need it; a tensor it computes is followed.
  bool methodCalled(const MemberExpr *Member) {
    DynTypedNodeList Parents = Ctx.getParents(*Member);
    const auto *Call =
        Parents.size() == 1 ? Parents[0].get<CXXMemberCallExpr>() : nullptr;
    if (!Call || Call->getCallee() != Member)
      return true; // a field of a struct, a method of a container
    const CXXMethodDecl *MD = Call->getMethodDecl();
    if (!api::isTensorMethod(MD) || readsGradients(MD))
      return true;
    if (api::carriesTensors(Call->getType())) {
      Pending.push_back(Call);
      return false;
    }
    return false; // item(), size(), dim(): no graph in a number
  }

  /// Node is an argument of Call: the value that carries the graph on
  /// (Call's), null when Call keeps none, nullopt when it may.
  std::optional<const Stmt *> argumentOf(const CallExpr *Call,
                                         const Stmt *Node) {
    if (api::isModuleCall(Call))
      return Call; // a module's output depends on its input
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
      const Expr *Target = api::ignoreWrappers(Op->getArg(0));
      if (Target == api::ignoreWrappers(dyn_cast<Expr>(Node)) ||
          Op->getArg(0) == Node) {
        if (Op->getOperator() == OO_Equal)
          return nullptr; // overwritten
        return Call;      // `total += x` keeps both graphs
      }
      const auto *Ref = dyn_cast<DeclRefExpr>(Target);
      const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      if (!Var || follow(Var))
        return std::nullopt; // a member, a global, an element
      return Call;
    }
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !api::isInTorchNamespace(Callee) || readsGradients(Callee))
      return std::nullopt; // the program's own functions may do anything
    // `y.copy_(x)`, `torch::add_out(y, a, x)`: x's graph is now y's.
    if (Callee->getIdentifier() && (Callee->getName().ends_with("_") ||
                                    Callee->getName().ends_with("_out"))) {
      const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
      const Expr *Written =
          Member ? Member->getImplicitObjectArgument() : nullptr;
      const auto *Ref =
          Written ? dyn_cast<DeclRefExpr>(api::ignoreWrappers(Written))
                  : nullptr;
      const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      if (!Var || follow(Var))
        return std::nullopt;
    }
    if (api::carriesTensors(Call->getType()))
      return Call;  // an operation: its result carries the graph on
    return nullptr; // torch::save, printing
  }

  /// True when Var's function can hand Var to code that is not followed.
  bool follow(const VarDecl *Var) {
    // A structured binding's reads name its bindings, not the variable.
    if (!Var->isLocalVarDecl() || Var->isStaticLocal() ||
        isa<DecompositionDecl>(Var))
      return true;
    if (!Followed.insert(Var).second)
      return false;
    const auto *Function = dyn_cast<FunctionDecl>(Var->getDeclContext());
    if (!Function || !Function->getBody())
      return true;
    VariableReads Reads(Var);
    Reads.TraverseStmt(Function->getBody());
    if (Reads.Captured)
      return true;
    for (const DeclRefExpr *Read : Reads.Reads)
      Pending.push_back(Read);
    return false;
  }

  ASTContext &Ctx;
  llvm::SmallVector<const Stmt *, 16> Pending;
  llvm::DenseSet<const VarDecl *> Followed;
};
} // namespace

bool graphMayBeUsed(const Expr *Result, ASTContext &Ctx) {
  return GraphUseFinder(Ctx).mayBeUsed(Result);
}

} // namespace torchlint
