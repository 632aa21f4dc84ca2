#include "analysis/FunctionCfg.h"

#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"

#include <deque>
#include <vector>

using namespace clang;

namespace torchlint {

std::optional<FunctionCfg::Place> FunctionCfg::placeOf(const Stmt *S,
                                                       ASTContext &Ctx) const {
  DynTypedNode Node = DynTypedNode::create(*S);
  // Bounded: an expression is rarely more than a few dozen levels deep.
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    if (const auto *Current = Node.get<Stmt>()) {
      auto It = Places.find(Current);
      if (It != Places.end())
        return It->second;
    }
    if (const auto *Var = Node.get<VarDecl>()) {
      auto It = DeclPlaces.find(Var);
      if (It != DeclPlaces.end())
        return It->second;
    }
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return std::nullopt;
    Node = Parents[0];
    if (Node.get<FunctionDecl>())
      return std::nullopt;
  }
  return std::nullopt;
}

const Stmt *
FunctionCfg::search(Place From,
                    llvm::function_ref<Step(const CFGElement &)> Visit,
                    bool *ReachesExit, EdgeFilter Taken) const {
  if (ReachesExit)
    *ReachesExit = false;
  const std::vector<const CFGBlock *> &ById = Blocks;
  std::vector<bool> Searched(ById.size(), false);
  std::deque<std::pair<unsigned, unsigned>> Work{
      {From.Block, From.Element + 1}};
  while (!Work.empty()) {
    auto [Id, First] = Work.front();
    Work.pop_front();
    const CFGBlock *Block = Id < ById.size() ? ById[Id] : nullptr;
    if (!Block)
      continue;
    if (ReachesExit && Block == &Graph->getExit())
      *ReachesExit = true;
    bool Ended = false;
    for (unsigned I = First; I < Block->size() && !Ended; ++I) {
      const CFGElement &Element = (*Block)[I];
      switch (Visit(Element)) {
      case Step::Continue:
        break;
      case Step::EndPath:
        Ended = true;
        break;
      case Step::Found:
        if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>())
          return S->getStmt();
        return nullptr;
      }
    }
    if (Ended)
      continue;
    unsigned Index = 0;
    for (const CFGBlock::AdjacentBlock &Succ : Block->succs()) {
      const CFGBlock *Next = Succ.getReachableBlock();
      if (Next && !Searched[Next->getBlockID()] &&
          (!Taken || Taken(*Block, Index))) {
        Searched[Next->getBlockID()] = true;
        Work.push_back({Next->getBlockID(), 0});
      }
      ++Index;
    }
  }
  return nullptr;
}

bool FunctionCfg::edgePossible(const CFGBlock &B, unsigned Succ,
                               bool CudaAvailable) const {
  if (B.succ_size() != 2 || Succ > 1)
    return true;
  const Stmt *Terminator = B.getTerminatorStmt();
  if (!Terminator || isa<SwitchStmt>(Terminator))
    return true;
  if (std::optional<FlagValue> Flag = flagOnEdge(B, Succ, Stable)) {
    const VarDecl *Var = Flag->first;
    std::optional<bool> Initial =
        Var->getInit() ? api::constantBool(Var->getInit(), Var->getASTContext())
                       : std::nullopt;
    if (Initial && *Initial != Flag->second)
      return false;
  }
  // Successor 0 is taken when the condition holds, 1 when it does not.
  return api::availabilityOf(B.getLastCondition())
      .branchPossible(/*Value=*/Succ == 0, CudaAvailable);
}

/// The function whose body holds S; for a statement in a lambda's body, the
/// lambda's call operator.
const FunctionDecl *functionOf(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*S);
  for (unsigned Steps = 0; Steps < 512; ++Steps) {
    if (const auto *Lambda = Node.get<LambdaExpr>())
      if (Steps > 0)
        return Lambda->getCallOperator();
    if (const auto *FD = Node.get<FunctionDecl>())
      return FD;
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return nullptr;
    Node = Parents[0];
  }
  return nullptr;
}

bool inTemplatePattern(const Stmt *S, ASTContext &Ctx) {
  const FunctionDecl *FD = S ? functionOf(S, Ctx) : nullptr;
  return FD && FD->isDependentContext();
}

const FunctionCfg *FunctionCfgCache::get(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  const FunctionDecl *Definition = nullptr;
  if (!FD->hasBody(Definition) || !Definition)
    return nullptr;
  auto [It, Inserted] = Cache.try_emplace(Definition);
  if (!Inserted)
    return It->second.get();

  CFG::BuildOptions Options;
  Options.AddInitializers = true;
  Options.AddCXXDefaultInitExprInCtors = true;
  Options.AddImplicitDtors = Lifetimes == ObjectLifetimes::Shown;
  Options.AddTemporaryDtors = false;
  Options.AddLifetime = false;
  Options.setAllAlwaysAdd();
  std::unique_ptr<CFG> Graph =
      CFG::buildCFG(Definition, Definition->getBody(), &Ctx, Options);
  if (!Graph)
    return nullptr;

  auto Result = std::make_unique<FunctionCfg>();
  Result->Function = Definition;
  Result->Blocks.assign(Graph->getNumBlockIDs(), nullptr);
  for (const CFGBlock *Block : *Graph) {
    Result->Blocks[Block->getBlockID()] = Block;
    unsigned Index = 0;
    for (const CFGElement &Element : *Block) {
      FunctionCfg::Place Here{Block->getBlockID(), Index++};
      if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>()) {
        Result->Places.try_emplace(S->getStmt(), Here);
        // The builder splits `T a, b;` into synthesized statements; keep the
        // declarations findable.
        if (const auto *DS = dyn_cast<DeclStmt>(S->getStmt()))
          for (const Decl *D : DS->decls())
            Result->DeclPlaces.try_emplace(D, Here);
      } else if (std::optional<CFGInitializer> Init =
                     Element.getAs<CFGInitializer>()) {
        if (const Expr *InitExpr = Init->getInitializer()->getInit())
          Result->Places.try_emplace(InitExpr, Here);
      }
    }
  }
  Result->Graph = std::move(Graph);
  It->second = std::move(Result);
  return It->second.get();
}

} // namespace torchlint
