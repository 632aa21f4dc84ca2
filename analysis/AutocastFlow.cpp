#include "analysis/AutocastFlow.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace torchlint {

struct AutocastFlow::Lattice {
  struct State {
    AutocastSetting Cuda;
    AutocastSetting Cpu;
    bool operator==(const State &O) const {
      return Cuda == O.Cuda && Cpu == O.Cpu;
    }
  };

  ASTContext *Ctx;

  State entry() const {
    State S;
    S.Cuda.MayBeUndecided = S.Cpu.MayBeUndecided = true;
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
  }
  void join(State &Into, const State &From) const {
    join(Into.Cuda, From.Cuda);
    join(Into.Cpu, From.Cpu);
  }

  void transfer(State &S, const CFGElement &E) const {
    std::optional<CFGStmt> Statement = E.getAs<CFGStmt>();
    const auto *Call =
        Statement ? dyn_cast<CallExpr>(Statement->getStmt()) : nullptr;
    if (!Call)
      return;
    std::optional<autocast::AutocastCall> Read = autocast::classify(Call, *Ctx);
    if (!Read)
      return;
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
    AutocastSetting *Setting = Read->Device == api::DeviceKind::CUDA  ? &S.Cuda
                               : Read->Device == api::DeviceKind::CPU ? &S.Cpu
                                                                      : nullptr;
    if (!Setting)
      return;
    const CallExpr *Dtype = Setting->Dtype;
    *Setting = AutocastSetting();
    Setting->Dtype = Dtype;
    switch (Read->What) {
    case autocast::Action::Enable:
      Setting->MayBeOn = true;
      Setting->TurnedOn = Call;
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
  if (Device != api::DeviceKind::CUDA && Device != api::DeviceKind::CPU)
    return std::nullopt;
  std::optional<Lattice::State> State = Flows.before(S, Cfgs, Lattice{&Ctx});
  if (!State)
    return std::nullopt;
  return Device == api::DeviceKind::CUDA ? State->Cuda : State->Cpu;
}

} // namespace torchlint
