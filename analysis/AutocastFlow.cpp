#include "analysis/AutocastFlow.h"

#include "analysis/BranchFlags.h"

#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace torchlint {

namespace {
template <typename T, unsigned N>
void addOnce(llvm::SmallVector<T, N> &Into, const T &Item) {
  if (!llvm::is_contained(Into, Item))
    Into.push_back(Item);
}

/// A statement by which control leaves a block of code early, skipping
/// what follows it there.
bool isLeavingStatement(const Stmt *S) {
  return S && (isa<ReturnStmt>(S) || isa<CXXThrowExpr>(S) ||
               isa<BreakStmt>(S) || isa<ContinueStmt>(S));
}
} // namespace

struct AutocastFlow::Lattice {
  /// What the paths that agree on the flags they tested know.
  struct Part {
    AutocastSetting Cuda;
    AutocastSetting Cpu;
    /// Switches naming a device chosen at run time.
    AutocastSetting RunTime;
    CastCacheSetting Cache;
    bool operator==(const Part &O) const {
      return Cuda == O.Cuda && Cpu == O.Cpu && RunTime == O.RunTime &&
             Cache == O.Cache;
    }
    AutocastSetting *setting(api::DeviceKind Device) {
      switch (Device) {
      case api::DeviceKind::CUDA:
        return &Cuda;
      case api::DeviceKind::CPU:
        return &Cpu;
      case api::DeviceKind::Unknown:
        return &RunTime;
      default:
        return nullptr;
      }
    }
  };
  using State = FlagPartitions<Part>;

  static constexpr const char *Name = "the autocast flow";
  ASTContext *Ctx;
  /// Shared by the copies of the lattice the engine makes.
  std::shared_ptr<StableFlags> Stable = std::make_shared<StableFlags>();

  State entry() const {
    Part P;
    P.Cuda.MayBeUndecided = P.Cpu.MayBeUndecided = P.RunTime.MayBeUndecided =
        true;
    State S;
    S.Parts.push_back({FlagValues(), P});
    return S;
  }
  State unreached() const { return State(); }

  static void join(AutocastSetting &Into, const AutocastSetting &From) {
    if (!From.reached())
      return;
    if (!Into.reached()) {
      Into = From;
      return;
    }
    if (!Into.Dtype)
      Into.Dtype = From.Dtype;
    Into.MayBeUndecided |= From.MayBeUndecided;
    Into.MayBeOn |= From.MayBeOn;
    Into.MayBeOff |= From.MayBeOff;
    Into.MayBeFromValue |= From.MayBeFromValue;
    if (!Into.TurnedOn)
      Into.TurnedOn = From.TurnedOn;
    for (const CallExpr *On : From.Open)
      addOnce(Into.Open, On);
    for (const auto &Left : From.LeftWhileOpen)
      addOnce(Into.LeftWhileOpen, Left);
  }
  static void joinParts(Part &Into, const Part &From) {
    // The cache's state rides on CUDA's reachedness.
    if (From.Cuda.reached()) {
      for (const CallExpr *On : From.Cache.Open)
        addOnce(Into.Cache.Open, On);
      Into.Cache.MayBeCleared |= From.Cache.MayBeCleared;
      Into.Cache.MayBeUncached |= From.Cache.MayBeUncached;
    }
    join(Into.Cuda, From.Cuda);
    join(Into.Cpu, From.Cpu);
    join(Into.RunTime, From.RunTime);
  }
  void join(State &Into, const State &From) const {
    Into.join(From, joinParts);
  }
  /// What every path to here knows, whichever flags it tested.
  static Part merged(const State &S) { return S.merged(joinParts); }

  static void leave(AutocastSetting &Setting, const Stmt *S) {
    for (const CallExpr *On : Setting.Open)
      addOnce(Setting.LeftWhileOpen, std::make_pair(On, S));
  }
  static void leave(Part &P, const Stmt *Statement) {
    leave(P.Cuda, Statement);
    leave(P.Cpu, Statement);
    leave(P.RunTime, Statement);
  }

  bool transferEdge(State &S, const CFGBlock &B, unsigned Succ) const {
    return S.takeEdge(B, Succ, *Stable, joinParts);
  }

  /// A break or a continue ends its block; a return or a throw is an
  /// element too, and is counted once.
  void transferTerminator(State &S, const CFGBlock &B) const {
    if (isLeavingStatement(B.getTerminatorStmt()))
      S.forEach([&](Part &P) { leave(P, B.getTerminatorStmt()); });
  }

  static void transferCache(CastCacheSetting &Cache,
                            const autocast::AutocastCall &Read) {
    bool ForCuda =
        Read.Device == api::DeviceKind::CUDA ||
        (Read.TakesDevice && Read.Device == api::DeviceKind::Unknown);
    switch (Read.What) {
    case autocast::Action::Enable:
      if (ForCuda)
        addOnce(Cache.Open, Read.Call);
      break;
    case autocast::Action::Disable:
    case autocast::Action::SetFromValue:
      if (ForCuda)
        Cache.Open.clear();
      break;
    case autocast::Action::ClearCache:
      Cache.MayBeCleared = true;
      break;
    case autocast::Action::DisableCache:
      Cache.MayBeUncached = true;
      break;
    default:
      break;
    }
  }

  void transfer(State &S, const CFGElement &E) const {
    std::optional<CFGStmt> Statement = E.getAs<CFGStmt>();
    if (!Statement)
      return;
    S.forEach([&](Part &P) { transfer(P, *Statement); });
  }

  void transfer(Part &S, const CFGStmt &Statement) const {
    if (isLeavingStatement(Statement.getStmt()))
      leave(S, Statement.getStmt());
    const auto *Call = dyn_cast<CallExpr>(Statement.getStmt());
    if (!Call)
      return;
    // A module run casts weights into the cache again.
    if (api::isModuleCall(Call)) {
      S.Cache.MayBeCleared = false;
      return;
    }
    std::optional<autocast::AutocastCall> Read = autocast::classify(Call, *Ctx);
    if (!Read)
      return;
    transferCache(S.Cache, *Read);
    if (Read->What == autocast::Action::SetDtype) {
      // A choice for no constant device is taken as CUDA's, the device a
      // dtype is chosen for in practice.
      if (Read->Device == api::DeviceKind::CUDA ||
          Read->Device == api::DeviceKind::Unknown)
        S.Cuda.Dtype = Call;
      return;
    }
    if (!Read->isSwitch())
      return;
    // A legacy name always says its device; a device argument that is not
    // a constant is the run-time device's.
    if (Read->Device == api::DeviceKind::Unknown && !Read->TakesDevice)
      return;
    AutocastSetting *Setting = S.setting(Read->Device);
    if (!Setting)
      return;
    // A switch decides the setting on every path; a switch-on leaves the
    // regions already open as they are, any other switch ends them. The
    // dtype choice stays.
    Setting->MayBeUndecided = Setting->MayBeOn = Setting->MayBeOff =
        Setting->MayBeFromValue = false;
    Setting->TurnedOn = nullptr;
    if (Read->What != autocast::Action::Enable) {
      Setting->Open.clear();
      Setting->LeftWhileOpen.clear();
    }
    switch (Read->What) {
    case autocast::Action::Enable:
      Setting->MayBeOn = true;
      Setting->TurnedOn = Call;
      addOnce(Setting->Open, Call);
      break;
    case autocast::Action::Disable:
      Setting->MayBeOff = true;
      break;
    default:
      Setting->MayBeFromValue = true;
      break;
    }
  }
};

AutocastFlow::AutocastFlow(ASTContext &Ctx, FunctionCfgCache &Cfgs)
    : Ctx(Ctx), Cfgs(Cfgs) {}
AutocastFlow::~AutocastFlow() = default;

std::optional<AutocastSetting> AutocastFlow::before(const Stmt *S,
                                                    api::DeviceKind Device) {
  std::optional<Lattice::State> State = Flows.before(S, Cfgs, Lattice{&Ctx});
  if (!State)
    return std::nullopt;
  Lattice::Part All = Lattice::merged(*State);
  if (const AutocastSetting *Setting = All.setting(Device))
    return *Setting;
  return std::nullopt;
}

std::optional<CastCacheSetting> AutocastFlow::cacheBefore(const Stmt *S) {
  std::optional<Lattice::State> State = Flows.before(S, Cfgs, Lattice{&Ctx});
  if (!State)
    return std::nullopt;
  Lattice::Part All = Lattice::merged(*State);
  if (!All.Cuda.reached())
    return std::nullopt;
  return All.Cache;
}

std::optional<AutocastSetting>
AutocastFlow::atExit(const FunctionDecl *Function, api::DeviceKind Device) {
  const FunctionCfg *Cfg = Cfgs.get(Function);
  if (!Cfg)
    return std::nullopt;
  std::optional<Lattice::State> State = Flows.atExit(*Cfg, Cfgs, Lattice{&Ctx});
  if (!State)
    return std::nullopt;
  Lattice::Part All = Lattice::merged(*State);
  if (const AutocastSetting *Setting = All.setting(Device))
    return *Setting;
  return std::nullopt;
}

} // namespace torchlint
