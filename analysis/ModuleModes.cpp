#include "analysis/ModuleModes.h"

#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

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

ModulePath modulePathOf(const Expr *Module) {
  ModulePath Reversed;
  const Expr *E = Module;
  for (unsigned Steps = 0; E && Steps < 16; ++Steps) {
    E = api::withoutArrow(api::ignoreWrappers(E))->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      Reversed.push_back(Ref->getDecl()->getCanonicalDecl());
      return ModulePath(Reversed.rbegin(), Reversed.rend());
    }
    const auto *Member = dyn_cast<MemberExpr>(E);
    if (!Member)
      return {};
    Reversed.push_back(Member->getMemberDecl()->getCanonicalDecl());
    const Expr *Base = Member->getBase()->IgnoreParenImpCasts();
    if (isa<CXXThisExpr>(Base))
      return ModulePath(Reversed.rbegin(), Reversed.rend());
    E = Base;
  }
  return {};
}

namespace {
const CXXMemberCallExpr *memberCallOf(const CFGElement &E) {
  std::optional<CFGStmt> Statement = E.getAs<CFGStmt>();
  return Statement ? dyn_cast<CXXMemberCallExpr>(Statement->getStmt())
                   : nullptr;
}

/// A is B, or a part of it: B's path begins A's.
bool isWithin(const ModulePath &A, const ModulePath &B) {
  return B.size() <= A.size() && std::equal(B.begin(), B.end(), A.begin());
}

/// The module whose mode Call switches, as a path (empty: reached
/// otherwise).
ModulePath switchedModule(const CXXMemberCallExpr *Call) {
  return modulePathOf(Call->getImplicitObjectArgument());
}

void join(ModuleMode &Into, const ModuleMode &From) {
  Into.MayBeUndecided |= From.MayBeUndecided;
  Into.MayBeTraining |= From.MayBeTraining;
  Into.MayBeEvaluation |= From.MayBeEvaluation;
  if (!Into.Evaluation)
    Into.Evaluation = From.Evaluation;
}
} // namespace

struct ModuleModes::Lattice {
  /// The modes of the modules a switch named, and of every other module.
  struct State {
    bool Reached = false;
    ModuleMode Others;
    llvm::SmallVector<std::pair<ModulePath, ModuleMode>, 2> Named;

    /// The mode Path inherits: its own, its closest parent's, or the
    /// others'.
    ModuleMode inherited(const ModulePath &Path) const {
      const std::pair<ModulePath, ModuleMode> *Closest = nullptr;
      for (const auto &Entry : Named)
        if (isWithin(Path, Entry.first) &&
            (!Closest || Entry.first.size() > Closest->first.size()))
          Closest = &Entry;
      return Closest ? Closest->second : Others;
    }

    bool operator==(const State &O) const {
      return Reached == O.Reached && Others == O.Others && Named == O.Named;
    }
  };
  static constexpr const char *Name = "the module-mode flow";
  ASTContext *Ctx;

  State entry() const {
    State S;
    S.Reached = true;
    S.Others.MayBeUndecided = true;
    return S;
  }
  State unreached() const { return State(); }
  void join(State &Into, const State &From) const {
    if (!From.Reached)
      return;
    if (!Into.Reached) {
      Into = From;
      return;
    }
    // A module one side names inherits on the other what that side says.
    State Joined;
    Joined.Reached = true;
    Joined.Others = Into.Others;
    torchlint::join(Joined.Others, From.Others);
    auto Add = [&](const ModulePath &Path) {
      for (const auto &Entry : Joined.Named)
        if (Entry.first == Path)
          return;
      ModuleMode Mode = Into.inherited(Path);
      torchlint::join(Mode, From.inherited(Path));
      Joined.Named.push_back({Path, Mode});
    };
    for (const auto &Entry : Into.Named)
      Add(Entry.first);
    for (const auto &Entry : From.Named)
      Add(Entry.first);
    Into = std::move(Joined);
  }
  void transfer(State &S, const CFGElement &E) const {
    const CXXMemberCallExpr *Call = memberCallOf(E);
    std::optional<bool> Evaluation = switchesToEvaluation(Call, *Ctx);
    if (!Evaluation)
      return;
    ModuleMode Mode;
    if (*Evaluation) {
      Mode.MayBeEvaluation = true;
      Mode.Evaluation = Call;
    } else {
      Mode.MayBeTraining = true;
    }
    ModulePath Path = switchedModule(Call);
    if (Path.empty()) {
      S.Named.clear();
      S.Others = Mode;
      return;
    }
    // A switch reaches the module's submodules too.
    llvm::erase_if(S.Named, [&](const auto &Entry) {
      return isWithin(Entry.first, Path);
    });
    S.Named.push_back({Path, Mode});
  }
};

ModuleModes::ModuleModes(ASTContext &Ctx, FunctionCfgCache &Cfgs)
    : Ctx(Ctx), Cfgs(Cfgs) {}
ModuleModes::~ModuleModes() = default;

std::optional<ModuleMode> ModuleModes::before(const Stmt *S,
                                              const Expr *Module) {
  std::optional<Lattice::State> State = Flows.before(S, Cfgs, Lattice{&Ctx});
  if (!State)
    return std::nullopt;
  ModulePath Path = modulePathOf(Module);
  if (Path.empty()) {
    // Reached otherwise: any switch may have been of it.
    ModuleMode Mode = State->Others;
    for (const auto &Entry : State->Named)
      join(Mode, Entry.second);
    return Mode;
  }
  ModuleMode Mode = State->inherited(Path);
  // A part of it switched to training trains when it runs.
  for (const auto &Entry : State->Named)
    if (Entry.first.size() > Path.size() && isWithin(Entry.first, Path) &&
        Entry.second.MayBeTraining)
      Mode.MayBeTraining = true;
  return Mode;
}

std::optional<bool> ModuleModes::reachesBeforeTraining(
    const Stmt *S, const Expr *Module,
    llvm::function_ref<bool(const Stmt *)> Needs) {
  const FunctionCfg *Cfg = Cfgs.of(S);
  if (!Cfg)
    return std::nullopt;
  std::optional<FunctionCfg::Place> Start = Cfg->placeOf(S, Ctx);
  if (!Start)
    return std::nullopt;
  ModulePath Path = modulePathOf(Module);
  auto Related = [&](const CXXMemberCallExpr *Call) {
    ModulePath Switched = switchedModule(Call);
    return Path.empty() || Switched.empty() || isWithin(Path, Switched) ||
           isWithin(Switched, Path);
  };
  using Step = FunctionCfg::Step;
  return Cfg->search(*Start, [&](const CFGElement &Element) {
    const CXXMemberCallExpr *Call = memberCallOf(Element);
    if (switchesToEvaluation(Call, Ctx) == false && Related(Call))
      return Step::EndPath;
    std::optional<CFGStmt> Statement = Element.getAs<CFGStmt>();
    return Statement && Needs(Statement->getStmt()) ? Step::Found
                                                    : Step::Continue;
  }) != nullptr;
}

} // namespace torchlint
