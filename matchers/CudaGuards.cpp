#include "CudaGuards.h"

#include "DeviceFlow.h"
#include "FunctionCfg.h"

#include "clang/AST/ASTContext.h"

#include <deque>

using namespace clang;

namespace torchlint {

CudaGuards::CudaGuards(ASTContext &Ctx, DeviceFlow &Flow)
    : Ctx(Ctx), Flow(Flow) {}

bool CudaGuards::entryGuarded(const FunctionDecl *FD) {
  if (const auto *Method = dyn_cast<CXXMethodDecl>(FD))
    if (Method->getParent()->isLambda())
      if (std::optional<DeviceFlow::CallSite> Origin = Flow.lambdaOrigin(FD))
        return Origin->Caller && isGuarded(Origin->Call);
  std::optional<llvm::ArrayRef<DeviceFlow::CallSite>> Sites =
      Flow.callSites(FD);
  if (!Sites || Sites->empty())
    return false;
  for (const DeviceFlow::CallSite &Site : *Sites)
    if (!Site.Caller || !isGuarded(Site.Call))
      return false;
  return true;
}

const CudaGuards::BlockFacts *CudaGuards::analyze(const FunctionDecl *FD) {
  const FunctionCfg *Cfg = Flow.cfgs().get(FD);
  if (!Cfg)
    return nullptr;
  FD = Cfg->Function;
  auto Cached = Results.find(FD);
  if (Cached != Results.end())
    return &Cached->second;
  // A recursive function's entry is assumed unguarded.
  if (!InProgress.insert(FD).second)
    return nullptr;
  bool Entry = entryGuarded(FD);
  InProgress.erase(FD);

  const CFG &Graph = *Cfg->Graph;
  BlockFacts Facts(Graph.getNumBlockIDs());
  std::vector<const CFGBlock *> ById(Graph.getNumBlockIDs());
  for (const CFGBlock *Block : Graph)
    ById[Block->getBlockID()] = Block;
  Facts[Graph.getEntry().getBlockID()] = Entry;
  std::deque<unsigned> Work{Graph.getEntry().getBlockID()};
  size_t Budget = 64 * Graph.getNumBlockIDs() + 64;
  while (!Work.empty() && Budget-- > 0) {
    const CFGBlock *Block = ById[Work.front()];
    Work.pop_front();
    bool Here = *Facts[Block->getBlockID()];
    unsigned Index = 0;
    for (const CFGBlock::AdjacentBlock &Succ : Block->succs()) {
      unsigned SuccIndex = Index++;
      const CFGBlock *Next = Succ.getReachableBlock();
      if (!Next)
        continue;
      bool Out = Here || Cfg->edgeAvailability(*Block, SuccIndex) > 0;
      std::optional<bool> &Into = Facts[Next->getBlockID()];
      bool Merged = Into ? (*Into && Out) : Out;
      if (!Into || *Into != Merged) {
        Into = Merged;
        Work.push_back(Next->getBlockID());
      }
    }
  }
  return &(Results[FD] = std::move(Facts));
}

bool CudaGuards::isGuarded(const Stmt *S) {
  const FunctionDecl *FD = Flow.enclosingFunction(S);
  const BlockFacts *Facts = FD ? analyze(FD) : nullptr;
  if (!Facts)
    return false;
  const FunctionCfg *Cfg = Flow.cfgs().get(FD);
  std::optional<FunctionCfg::Place> Place = Cfg->placeOf(S, Ctx);
  if (!Place || Place->Block >= Facts->size())
    return false;
  // A block that no path reaches is dead code: nothing to report there.
  return (*Facts)[Place->Block].value_or(true);
}

} // namespace torchlint
