#include "analysis/EnclosingBlocks.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"

using namespace clang;

namespace torchlint {

void forEachEnclosingBlock(
    const Stmt *S, ASTContext &Ctx,
    llvm::function_ref<bool(const CompoundStmt *, const Stmt *)> Visit,
    unsigned MaxSteps) {
  DynTypedNode Node = DynTypedNode::create(*S);
  const Stmt *Child = S;
  for (unsigned Steps = 0; Steps < MaxSteps; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return;
    Node = Parents[0];
    const auto *Parent = Node.get<Stmt>();
    if (!Parent) {
      if (Node.get<VarDecl>())
        continue; // a local variable's initialiser
      return;
    }
    if (const auto *Block = dyn_cast<CompoundStmt>(Parent))
      if (Visit(Block, Child))
        return;
    if (isa<LambdaExpr>(Parent))
      return;
    Child = Parent;
  }
}

const Stmt *statementInBlock(const Stmt *S, ASTContext &Ctx) {
  const Stmt *Found = nullptr;
  forEachEnclosingBlock(
      S, Ctx,
      [&](const CompoundStmt *, const Stmt *Child) {
        Found = Child;
        return true;
      },
      /*MaxSteps=*/64);
  return Found;
}

} // namespace torchlint
