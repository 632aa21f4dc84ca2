#include "analysis/AutocastCallers.h"

#include "analysis/AutocastFlow.h"
#include "analysis/DeviceFlow.h"
#include "analysis/StepContext.h"

using namespace clang;

namespace torchlint {

namespace {
// A step's call chain within one unit is short; deeper ones are not
// followed.
constexpr unsigned MaxCallerDepth = 4;

/// What the switches on the paths to a statement, in its own function, say
/// of autocast for every device.
struct LocalAutocast {
  /// A switch-on some path leaves on.
  const CallExpr *TurnedOn = nullptr;
  /// No switch decides some device's setting on some path.
  bool Undecided = false;
};

LocalAutocast localAutocastAt(const Stmt *S, AutocastFlow &Autocast) {
  LocalAutocast Local;
  // Unknown: the switches for a device chosen at run time.
  for (api::DeviceKind Device :
       {api::DeviceKind::CUDA, api::DeviceKind::CPU, api::DeviceKind::Unknown})
    if (std::optional<AutocastSetting> Setting = Autocast.before(S, Device)) {
      if (Setting->isOn() && !Local.TurnedOn)
        Local.TurnedOn = Setting->TurnedOn;
      Local.Undecided |= Setting->MayBeUndecided;
    }
  return Local;
}

AutocastOrigin onAt(const Stmt *S, const FunctionDecl *Function,
                    AutocastFlow &Autocast, DeviceFlow &Flow,
                    StepContext *Steps, unsigned Depth);

AutocastOrigin onInCallers(const FunctionDecl *Function, AutocastFlow &Autocast,
                           DeviceFlow &Flow, StepContext *Steps,
                           unsigned Depth) {
  // A lambda runs where it is called, which the index does not follow.
  if (!Function || Flow.index().lambdaOrigin(Function))
    return {};
  std::optional<llvm::ArrayRef<UnitIndex::CallSite>> Sites =
      Flow.index().callSites(Function->getCanonicalDecl());
  if (!Sites)
    return {};
  if (Sites->empty())
    return {nullptr, Steps ? Steps->autocastOnInCallersElsewhere(Function)
                           : std::nullopt};
  if (Depth >= MaxCallerDepth)
    return {};
  for (const UnitIndex::CallSite &Site : *Sites)
    if (AutocastOrigin Found =
            onAt(Site.Call, Site.Caller, Autocast, Flow, Steps, Depth + 1))
      return Found;
  return {};
}

AutocastOrigin onAt(const Stmt *S, const FunctionDecl *Function,
                    AutocastFlow &Autocast, DeviceFlow &Flow,
                    StepContext *Steps, unsigned Depth) {
  LocalAutocast Local = localAutocastAt(S, Autocast);
  if (Local.TurnedOn)
    return {Local.TurnedOn, std::nullopt};
  if (!Local.Undecided)
    return {};
  return onInCallers(Function, Autocast, Flow, Steps, Depth);
}
} // namespace

bool autocastUndecidedAt(const Stmt *S, AutocastFlow &Autocast) {
  return localAutocastAt(S, Autocast).Undecided;
}

AutocastOrigin autocastOnAt(const Stmt *S, const FunctionDecl *Function,
                            AutocastFlow &Autocast, DeviceFlow &Flow,
                            StepContext *Steps) {
  return onAt(S, Function, Autocast, Flow, Steps, 0);
}

} // namespace torchlint
