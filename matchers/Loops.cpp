#include "Loops.h"

#include "DeviceFlow.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace torchlint {

namespace {
/// Child is a part of Loop that runs on every iteration.
bool repeatsIn(const Stmt *Loop, const Stmt *Child) {
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

Repetition repetitionThroughCalls(const Stmt *S, DeviceFlow &Flow,
                                  unsigned Depth) {
  ASTContext &Ctx = Flow.astContext();
  if (const Stmt *Loop = enclosingLoop(S, Ctx))
    return {Loop, nullptr};
  if (Depth >= MaxCallDepth)
    return {};
  const FunctionDecl *FD = Flow.enclosingFunction(S);
  if (!FD)
    return {};
  if (std::optional<DeviceFlow::CallSite> Lambda = Flow.lambdaOrigin(FD)) {
    Repetition R = repetitionThroughCalls(Lambda->Call, Flow, Depth + 1);
    if (R)
      return R;
    // A lambda called in a loop is as good as a function called there; its
    // calls are not indexed, so it stops here.
    return {};
  }
  std::optional<llvm::ArrayRef<DeviceFlow::CallSite>> Sites =
      Flow.callSites(FD->getCanonicalDecl());
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
    if (repeatsIn(Parent, Child))
      return Parent;
    Child = Parent;
  }
  return nullptr;
}

Repetition repetitionOf(const Stmt *S, DeviceFlow &Flow) {
  return repetitionThroughCalls(S, Flow, 0);
}

} // namespace torchlint
