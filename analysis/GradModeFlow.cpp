#include "analysis/GradModeFlow.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include "llvm/ADT/SmallVector.h"

using namespace clang;

namespace torchlint {

struct GradModeFlow::Lattice {
  struct State {
    bool Reached = false;
    GradSetting Current;
    /// The setting each live guard replaced, innermost last: its destructor
    /// puts it back.
    llvm::SmallVector<std::pair<const VarDecl *, GradSetting>, 2> Replaced;

    bool operator==(const State &O) const {
      return Reached == O.Reached && Current == O.Current &&
             Replaced == O.Replaced;
    }
  };

  static constexpr const char *Name = "the grad-mode flow";
  ASTContext *Ctx;

  State entry() const {
    State S;
    S.Reached = true;
    return S;
  }
  State unreached() const { return State(); }

  static GradSetting joined(const GradSetting &A, const GradSetting &B) {
    if (A.State == B.State)
      return A;
    // Decided on one path and not on another, or differently: the setting
    // is chosen at run time, which is as deliberate as set_enabled(flag).
    return {GradSetting::Enabled, A.Where ? A.Where : B.Where};
  }

  void join(State &Into, const State &From) const {
    if (!From.Reached)
      return;
    if (!Into.Reached) {
      Into = From;
      return;
    }
    Into.Current = joined(Into.Current, From.Current);
    // Guards live in scopes, so the paths that meet hold the same guards;
    // what each replaced may differ.
    size_t Common = 0;
    while (Common < Into.Replaced.size() && Common < From.Replaced.size() &&
           Into.Replaced[Common].first == From.Replaced[Common].first) {
      Into.Replaced[Common].second =
          joined(Into.Replaced[Common].second, From.Replaced[Common].second);
      ++Common;
    }
    Into.Replaced.truncate(Common);
  }

  void transfer(State &S, const CFGElement &E) const {
    if (std::optional<CFGAutomaticObjDtor> Dtor =
            E.getAs<CFGAutomaticObjDtor>()) {
      for (size_t I = S.Replaced.size(); I-- > 0;)
        if (S.Replaced[I].first == Dtor->getVarDecl()) {
          S.Current = S.Replaced[I].second;
          S.Replaced.truncate(I);
          break;
        }
      return;
    }
    std::optional<CFGStmt> Statement = E.getAs<CFGStmt>();
    if (!Statement)
      return;
    if (const auto *Decls = dyn_cast<DeclStmt>(Statement->getStmt())) {
      for (const Decl *D : Decls->decls()) {
        const auto *Var = dyn_cast<VarDecl>(D);
        GradSetting::Kind Effect = guardEffect(Var, *Ctx);
        if (Effect == GradSetting::Default)
          continue;
        S.Replaced.push_back({Var, S.Current});
        S.Current = {Effect, Decls};
      }
      return;
    }
    if (std::optional<std::optional<bool>> Setting =
            gradModeSwitch(Statement->getStmt(), *Ctx))
      S.Current = {*Setting == false ? GradSetting::Disabled
                                     : GradSetting::Enabled,
                   Statement->getStmt()};
  }
};

GradModeFlow::GradModeFlow(ASTContext &Ctx, FunctionCfgCache &Cfgs)
    : Ctx(Ctx), Cfgs(Cfgs) {}
GradModeFlow::~GradModeFlow() = default;

GradSetting GradModeFlow::before(const Stmt *S) {
  std::optional<Lattice::State> State = Flows.before(S, Cfgs, Lattice{&Ctx});
  return State ? State->Current : GradSetting();
}

} // namespace torchlint
