#include "analysis/Loops.h"

#include "analysis/DeviceFlow.h"
#include "analysis/ReachingValues.h"
#include "analysis/StepContext.h"
#include "core/UserCode.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace torchlint {

namespace {
/// `do { ... } while (false)`, as macros expand to, runs once.
bool runsOnce(const Expr *Cond, ASTContext &Ctx) {
  return Cond && api::constantBool(Cond, Ctx) == false;
}

/// The body ends in a `break` or a `return` that every path reaches: the
/// loop runs its body once (a test that stops after the first batch).
bool leavesAfterFirstIteration(const Stmt *Body) {
  const auto *Block = dyn_cast_or_null<CompoundStmt>(Body);
  const Stmt *Last = Block && !Block->body_empty() ? Block->body_back() : Body;
  return Last && (isa<BreakStmt>(Last) || isa<ReturnStmt>(Last));
}

/// Child is a part of Loop that runs on every iteration.
bool repeatsIn(const Stmt *Loop, const Stmt *Child, ASTContext &Ctx) {
  if (stopsAfterFirstPass(Loop))
    return false;
  if (const auto *Do = dyn_cast<DoStmt>(Loop);
      Do && runsOnce(Do->getCond(), Ctx))
    return false;
  if (const auto *While = dyn_cast<WhileStmt>(Loop);
      While && runsOnce(While->getCond(), Ctx))
    return false;
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return Child == For->getBody() || Child == For->getCond() ||
           Child == For->getInc();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    return Child == Range->getBody() || Child == Range->getLoopVarStmt();
  if (const auto *While = dyn_cast<WhileStmt>(Loop))
    return Child == While->getBody() || Child == While->getCond();
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    return Child == Do->getBody() || Child == Do->getCond();
  return false;
}

constexpr unsigned MaxCallDepth = 3;
} // namespace

const CXXForRangeStmt *rangeForDeclaring(const VarDecl *Var, ASTContext &Ctx) {
  for (const DynTypedNode &Parent : Ctx.getParents(*Var))
    if (const auto *Decl = Parent.get<DeclStmt>())
      for (const DynTypedNode &Above : Ctx.getParents(*Decl))
        if (const auto *For = Above.get<CXXForRangeStmt>();
            For && For->getLoopVariable() == Var)
          return For;
  return nullptr;
}

bool stopsAfterFirstPass(const Stmt *Loop) {
  const Stmt *Body = nullptr;
  if (const auto *For = dyn_cast_or_null<ForStmt>(Loop))
    Body = For->getBody();
  else if (const auto *Range = dyn_cast_or_null<CXXForRangeStmt>(Loop))
    Body = Range->getBody();
  else if (const auto *While = dyn_cast_or_null<WhileStmt>(Loop))
    Body = While->getBody();
  else if (const auto *Do = dyn_cast_or_null<DoStmt>(Loop))
    Body = Do->getBody();
  return Body && leavesAfterFirstIteration(Body);
}

namespace {

Repetition repetitionThroughCalls(const Stmt *S, DeviceFlow &Flow,
                                  unsigned Depth) {
  ASTContext &Ctx = Flow.astContext();
  if (const Stmt *Loop = enclosingLoop(S, Ctx))
    return {Loop, nullptr};
  if (Depth >= MaxCallDepth)
    return {};
  const FunctionDecl *FD = Flow.index().enclosingFunction(S);
  if (!FD)
    return {};
  if (std::optional<DeviceFlow::CallSite> Lambda =
          Flow.index().lambdaOrigin(FD)) {
    Repetition R = repetitionThroughCalls(Lambda->Call, Flow, Depth + 1);
    if (R)
      return R;
    // A lambda called in a loop is as good as a function called there; its
    // calls are not indexed, so it stops here.
    return {};
  }
  std::optional<llvm::ArrayRef<DeviceFlow::CallSite>> Sites =
      Flow.index().callSites(FD->getCanonicalDecl());
  if (!Sites)
    return {};
  for (const DeviceFlow::CallSite &Site : *Sites) {
    Repetition R = repetitionThroughCalls(Site.Call, Flow, Depth + 1);
    if (R)
      return {R.Loop, R.Call ? R.Call : Site.Call};
  }
  return {};
}
} // namespace

const Stmt *enclosingLoop(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*S);
  const Stmt *Child = S;
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return nullptr;
    Node = Parents[0];
    if (const auto *D = Node.get<Decl>()) {
      if (isa<VarDecl>(D) && !isa<ParmVarDecl>(D))
        continue;     // a local variable's initialiser
      return nullptr; // the function, a lambda's class
    }
    const auto *Parent = Node.get<Stmt>();
    if (!Parent || isa<LambdaExpr>(Parent))
      return nullptr;
    if (repeatsIn(Parent, Child, Ctx))
      return Parent;
    Child = Parent;
  }
  return nullptr;
}

Repetition repetitionOf(const Stmt *S, DeviceFlow &Flow, StepContext *Steps) {
  Repetition Found = repetitionThroughCalls(S, Flow, 0);
  if (Found || !Steps)
    return Found;
  StepContext::PerStep Called =
      Steps->perStepThroughCallers(Flow.index().enclosingFunction(S));
  if (Called) {
    Found.Loop = Called.Loop;
    Found.Call = Called.Call;
    Found.Elsewhere = !Called.Loop;
  }
  return Found;
}

namespace {
bool hasModulo(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *Op = dyn_cast<BinaryOperator>(S))
    if (Op->getOpcode() == BO_Rem)
      return true;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
    if (Op->getOperator() == OO_Percent)
      return true;
  for (const Stmt *Child : S->children())
    if (hasModulo(Child))
      return true;
  return false;
}
} // namespace

bool walkUpTo(
    const Stmt *S, const Stmt *Loop, ASTContext &Ctx,
    llvm::function_ref<bool(const Stmt *Parent, const Stmt *Child)> Visit) {
  DynTypedNode Node = DynTypedNode::create(*S);
  const Stmt *Child = S;
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return false;
    Node = Parents[0];
    const auto *Parent = Node.get<Stmt>();
    if (!Parent) {
      if (Node.get<VarDecl>())
        continue;
      return false;
    }
    if (Visit(Parent, Child))
      return true;
    if (Parent == Loop)
      return false;
    Child = Parent;
  }
  return false;
}

bool inBranch(const Stmt *S, ASTContext &Ctx) {
  return walkUpTo(S, nullptr, Ctx, [](const Stmt *Parent, const Stmt *Child) {
    if (const auto *If = dyn_cast<IfStmt>(Parent))
      return Child != If->getCond() && Child != If->getInit();
    return isa<SwitchStmt>(Parent) || isa<ConditionalOperator>(Parent) ||
           isa<BinaryConditionalOperator>(Parent);
  });
}

namespace {
/// The first backward() in a function body, and whether it is in a loop;
/// calls of the user's functions are looked into Depth more levels.
class BackwardFinder : public RecursiveASTVisitor<BackwardFinder> {
public:
  BackwardFinder(ASTContext &Ctx, const UserCode &Code, unsigned Depth)
      : Ctx(Ctx), Code(Code), Depth(Depth) {}
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitCallExpr(CallExpr *Call) {
    if (const CallExpr *Backward = repeatedBackward(Call, Ctx, Code, Depth)) {
      Found = Backward;
      return false;
    }
    if (!Any && api::isBackwardCall(Call))
      Any = Call;
    return true;
  }
  const CallExpr *Found = nullptr;
  /// A backward() that is not in a loop of this body.
  const CallExpr *Any = nullptr;

private:
  ASTContext &Ctx;
  const UserCode &Code;
  unsigned Depth;
};
} // namespace

const CallExpr *repeatedBackward(const Stmt *S, ASTContext &Ctx,
                                 const UserCode &Code, unsigned Depth) {
  const auto *Call = dyn_cast_or_null<CallExpr>(S);
  if (!Call)
    return nullptr;
  if (api::isBackwardCall(Call))
    return enclosingLoop(Call, Ctx) ? Call : nullptr;
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Depth || !Callee || !Callee->hasBody(Definition) ||
      !Code.isAnalyzed(Definition->getLocation(), Ctx.getSourceManager()))
    return nullptr;
  BackwardFinder Finder(Ctx, Code, Depth - 1);
  Finder.TraverseStmt(Definition->getBody());
  if (Finder.Found)
    return Finder.Found;
  return Finder.Any && enclosingLoop(Call, Ctx) ? Finder.Any : nullptr;
}

namespace {
/// The variables that count Loop's iterations: declared in a for's init, or
/// stepped (++, --, +=, -=) in the loop.
void countersOf(const Stmt *S, llvm::SmallPtrSetImpl<const VarDecl *> &Into) {
  if (!S)
    return;
  auto Add = [&](const Expr *E) {
    if (const auto *Ref =
            dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : E))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        Into.insert(Var);
  };
  if (const auto *Op = dyn_cast<UnaryOperator>(S);
      Op && Op->isIncrementDecrementOp())
    Add(Op->getSubExpr());
  if (const auto *Op = dyn_cast<CompoundAssignOperator>(S);
      Op &&
      (Op->getOpcode() == BO_AddAssign || Op->getOpcode() == BO_SubAssign))
    Add(Op->getLHS());
  if (const auto *For = dyn_cast<ForStmt>(S))
    if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit()))
      for (const Decl *D : Init->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D))
          Into.insert(Var);
  for (const Stmt *Child : S->children())
    countersOf(Child, Into);
}

/// Cond compares a counter for equality (`i == 0`, `i + 1 == n`): true on one
/// iteration.
bool equalsCounter(const Stmt *Cond,
                   const llvm::SmallPtrSetImpl<const VarDecl *> &Counters) {
  if (!Cond)
    return false;
  auto NamesCounter = [&](const Stmt *E, auto &&Self) -> bool {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return Counters.count(dyn_cast<VarDecl>(Ref->getDecl())) != 0;
    for (const Stmt *Child : E->children())
      if (Child && Self(Child, Self))
        return true;
    return false;
  };
  if (const auto *Op = dyn_cast<BinaryOperator>(Cond);
      Op && Op->getOpcode() == BO_EQ)
    return NamesCounter(Op, NamesCounter);
  for (const Stmt *Child : Cond->children())
    if (equalsCounter(Child, Counters))
      return true;
  return false;
}
} // namespace

bool inPeriodicBranch(const Stmt *S, const Stmt *Loop, ASTContext &Ctx) {
  llvm::SmallPtrSet<const VarDecl *, 4> Counters;
  countersOf(Loop, Counters);
  return walkUpTo(S, Loop, Ctx, [&](const Stmt *Parent, const Stmt *Child) {
    const auto *If = dyn_cast<IfStmt>(Parent);
    return If && Child != If->getCond() &&
           (hasModulo(If->getCond()) || equalsCounter(If->getCond(), Counters));
  });
}

bool decidesControlFlow(const Stmt *S, const Stmt *Loop, ASTContext &Ctx) {
  return walkUpTo(S, Loop, Ctx, [](const Stmt *Parent, const Stmt *Child) {
    if (const auto *If = dyn_cast<IfStmt>(Parent))
      return Child == If->getCond();
    if (const auto *While = dyn_cast<WhileStmt>(Parent))
      return Child == While->getCond();
    if (const auto *Do = dyn_cast<DoStmt>(Parent))
      return Child == Do->getCond();
    if (const auto *For = dyn_cast<ForStmt>(Parent))
      return Child == For->getCond();
    if (const auto *Cond = dyn_cast<ConditionalOperator>(Parent))
      return Child == Cond->getCond();
    return false;
  });
}

namespace {
/// Statement B ends Loop when it runs: a break out of it (none of the loops
/// or switches between If and Loop catch it), a return or a goto, or a
/// block that ends in one. A throw is an error, not how the loop ends.
bool leavesLoop(const Stmt *B, const IfStmt *If, const Stmt *Loop,
                ASTContext &Ctx) {
  if (const auto *Block = dyn_cast_or_null<CompoundStmt>(B))
    B = Block->body_empty() ? nullptr : Block->body_back();
  if (!B)
    return false;
  if (isa<ReturnStmt>(B) || isa<GotoStmt>(B))
    return true;
  if (!isa<BreakStmt>(B))
    return false;
  return !walkUpTo(If, Loop, Ctx, [&](const Stmt *Parent, const Stmt *) {
    return Parent != Loop &&
           (isa<ForStmt>(Parent) || isa<WhileStmt>(Parent) ||
            isa<DoStmt>(Parent) || isa<CXXForRangeStmt>(Parent) ||
            isa<SwitchStmt>(Parent));
  });
}

/// The condition that directly holds S (through operators and casts, not
/// through a nested statement), and the statement it is the condition of.
const Stmt *conditionOwner(const Stmt *S, const Stmt *Loop, ASTContext &Ctx) {
  const Stmt *Owner = nullptr;
  walkUpTo(S, Loop, Ctx, [&](const Stmt *Parent, const Stmt *Child) {
    if (const auto *If = dyn_cast<IfStmt>(Parent))
      Owner = Child == If->getCond() ? Parent : nullptr;
    else if (const auto *While = dyn_cast<WhileStmt>(Parent))
      Owner = Child == While->getCond() ? Parent : nullptr;
    else if (const auto *Do = dyn_cast<DoStmt>(Parent))
      Owner = Child == Do->getCond() ? Parent : nullptr;
    else if (const auto *For = dyn_cast<ForStmt>(Parent))
      Owner = Child == For->getCond() ? Parent : nullptr;
    else if (isa<Expr>(Parent))
      return false;
    return true;
  });
  return Owner;
}
} // namespace

bool decidesLoopExit(const Stmt *S, const Stmt *Loop, ASTContext &Ctx) {
  if (!Loop)
    return false;
  auto Decides = [&](const Stmt *Use) {
    const Stmt *Owner = conditionOwner(Use, Loop, Ctx);
    if (!Owner)
      return false;
    if (Owner == Loop)
      return true;
    const auto *If = dyn_cast<IfStmt>(Owner);
    return If && (leavesLoop(If->getThen(), If, Loop, Ctx) ||
                  leavesLoop(If->getElse(), If, Loop, Ctx));
  };
  if (Decides(S))
    return true;
  // `auto token = next.item<int64_t>(); if (token == eos) break;`
  const VarDecl *Held = nullptr;
  walkUpTo(S, Loop, Ctx, [&](const Stmt *Parent, const Stmt *) {
    if (const auto *Decl = dyn_cast<DeclStmt>(Parent)) {
      if (Decl->isSingleDecl())
        Held = dyn_cast<VarDecl>(Decl->getSingleDecl());
      return true;
    }
    return !isa<Expr>(Parent);
  });
  if (!Held)
    return false;
  return llvm::any_of(referencesTo(Held, Loop), Decides);
}

const clang::Stmt *stepOf(const Repetition &Repeated, const clang::Stmt *S,
                          DeviceFlow &Flow) {
  if (Repeated.Loop && !Repeated.Call)
    return Repeated.Loop;
  const clang::FunctionDecl *FD = Flow.index().enclosingFunction(S);
  return FD ? FD->getBody() : nullptr;
}

} // namespace torchlint
