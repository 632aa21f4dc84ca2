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
  for (api::DeviceKind Device : {api::DeviceKind::CUDA, api::DeviceKind::CPU})
    if (std::optional<AutocastSetting> Setting = Autocast.before(S, Device);
        Setting && Setting->isOn())
      return {Setting->TurnedOn, std::nullopt};
  if (!autocastUndecidedAt(S, Autocast))
    return {};
  return onInCallers(Function, Autocast, Flow, Steps, Depth);
}
} // namespace

bool autocastUndecidedAt(const Stmt *S, AutocastFlow &Autocast) {
  for (api::DeviceKind Device : {api::DeviceKind::CUDA, api::DeviceKind::CPU})
    if (std::optional<AutocastSetting> Setting = Autocast.before(S, Device);
        Setting && Setting->MayBeUndecided)
      return true;
  return false;
}

AutocastOrigin autocastOnAt(const Stmt *S, const FunctionDecl *Function,
                            AutocastFlow &Autocast, DeviceFlow &Flow,
                            StepContext *Steps) {
  return onAt(S, Function, Autocast, Flow, Steps, 0);
}

} // namespace torchlint
