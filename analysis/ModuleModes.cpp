#include "analysis/ModuleModes.h"

#include "api/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

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
  static constexpr const char *Name = "the module-mode flow";
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

std::optional<ModuleMode> ModuleModes::before(const Stmt *S) {
  return Flows.before(S, Cfgs, Lattice{&Ctx});
}

std::optional<bool> ModuleModes::reachesBeforeTraining(
    const Stmt *S, llvm::function_ref<bool(const Stmt *)> Needs) {
  const FunctionCfg *Cfg = Cfgs.of(S);
  if (!Cfg)
    return std::nullopt;
  std::optional<FunctionCfg::Place> Start = Cfg->placeOf(S, Ctx);
  if (!Start)
    return std::nullopt;
  using Step = FunctionCfg::Step;
  return Cfg->search(*Start, [&](const CFGElement &Element) {
    if (switchesToEvaluation(memberCallOf(Element), Ctx) == false)
      return Step::EndPath;
    std::optional<CFGStmt> Statement = Element.getAs<CFGStmt>();
    return Statement && Needs(Statement->getStmt()) ? Step::Found
                                                    : Step::Continue;
  }) != nullptr;
}

} // namespace torchlint
