#include "analysis/ModuleModes.h"

#include "api/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

#include <deque>
#include <vector>

using namespace clang;

namespace torchlint {

std::optional<bool> switchesToEvaluation(const CXXMemberCallExpr *Call,
                                         ASTContext &Ctx) {
  const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
  if (api::isModuleMethod(MD, "eval"))
    return true;
  if (api::isModuleMethod(MD, "train"))
    return Call->getNumArgs() == 1 &&
           !isa<CXXDefaultArgExpr>(Call->getArg(0)) &&
           api::constantBool(Call->getArg(0), Ctx) == false;
  return std::nullopt;
}

namespace {
const CXXMemberCallExpr *memberCallOf(const CFGElement &E) {
  std::optional<CFGStmt> Statement = E.getAs<CFGStmt>();
  return Statement ? dyn_cast<CXXMemberCallExpr>(Statement->getStmt())
                   : nullptr;
}
} // namespace

struct ModuleModes::Lattice {
  using State = ModuleMode;
  ASTContext *Ctx;

  State entry() const {
    State S;
    S.MayBeUndecided = true;
    return S;
  }
  State unreached() const { return State(); }
  void join(State &Into, const State &From) const {
    Into.MayBeUndecided |= From.MayBeUndecided;
    Into.MayBeTraining |= From.MayBeTraining;
    Into.MayBeEvaluation |= From.MayBeEvaluation;
    if (!Into.Evaluation)
      Into.Evaluation = From.Evaluation;
  }
  void transfer(State &S, const CFGElement &E) const {
    const CXXMemberCallExpr *Call = memberCallOf(E);
    std::optional<bool> Evaluation = switchesToEvaluation(Call, *Ctx);
    if (!Evaluation)
      return;
    S = State();
    if (*Evaluation) {
      S.MayBeEvaluation = true;
      S.Evaluation = Call;
    } else {
      S.MayBeTraining = true;
    }
  }
};

ModuleModes::ModuleModes(ASTContext &Ctx, FunctionCfgCache &Cfgs)
    : Ctx(Ctx), Cfgs(Cfgs) {}
ModuleModes::~ModuleModes() = default;

const FunctionCfg *ModuleModes::cfgOf(const Stmt *S) {
  return S ? Cfgs.get(functionOf(S, Ctx)) : nullptr;
}

std::optional<ModuleMode> ModuleModes::before(const Stmt *S) {
  const FunctionCfg *Cfg = cfgOf(S);
  if (!Cfg)
    return std::nullopt;
  std::optional<FunctionCfg::Place> Place = Cfg->placeOf(S, Ctx);
  if (!Place)
    return std::nullopt;
  std::unique_ptr<ForwardFlow<Lattice>> &Flow = Flows[Cfg];
  if (!Flow)
    Flow = std::make_unique<ForwardFlow<Lattice>>(*Cfg, Lattice{&Ctx});
  if (!Flow->converged())
    return std::nullopt;
  return Flow->before(*Place);
}

std::optional<bool> ModuleModes::reachesBeforeTraining(
    const Stmt *S, llvm::function_ref<bool(const Stmt *)> Needs) {
  const FunctionCfg *Cfg = cfgOf(S);
  if (!Cfg)
    return std::nullopt;
  std::optional<FunctionCfg::Place> Start = Cfg->placeOf(S, Ctx);
  if (!Start)
    return std::nullopt;
  std::vector<const CFGBlock *> ById(Cfg->Graph->getNumBlockIDs());
  for (const CFGBlock *Block : *Cfg->Graph)
    ById[Block->getBlockID()] = Block;
  // Each block is searched once from its start; the first one from right
  // after S.
  std::vector<bool> Searched(ById.size(), false);
  std::deque<std::pair<unsigned, unsigned>> Work{
      {Start->Block, Start->Element + 1}};
  while (!Work.empty()) {
    auto [Id, From] = Work.front();
    Work.pop_front();
    const CFGBlock *Block = ById[Id];
    if (!Block)
      continue;
    bool Stopped = false;
    for (unsigned I = From; I < Block->size() && !Stopped; ++I) {
      const CFGElement &Element = (*Block)[I];
      if (std::optional<bool> Evaluation =
              switchesToEvaluation(memberCallOf(Element), Ctx);
          Evaluation && !*Evaluation) {
        Stopped = true;
        break;
      }
      if (std::optional<CFGStmt> Statement = Element.getAs<CFGStmt>())
        if (Needs(Statement->getStmt()))
          return true;
    }
    if (Stopped)
      continue;
    for (const CFGBlock::AdjacentBlock &Succ : Block->succs())
      if (const CFGBlock *Next = Succ.getReachableBlock();
          Next && !Searched[Next->getBlockID()]) {
        Searched[Next->getBlockID()] = true;
        Work.push_back({Next->getBlockID(), 0});
      }
  }
  return false;
}

} // namespace torchlint
