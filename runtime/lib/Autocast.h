//===--- Autocast.h - Autocast across both API generations ------*- C++ -*-===//
//
// libtorch up to 2.3 has one switch per device family (set_enabled for CUDA,
// set_cpu_enabled); 2.4 and later take the device type. The build decides
// which exists (TORCHLINT_AUTOCAST_BY_DEVICE), so scenarios need not.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_AUTOCAST_H
#define TORCHLINT_RUNTIME_AUTOCAST_H

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace torchlint::replay {

/// Turns autocast for Device on (in Type) or off; it does not clear the
/// cast cache, exactly as a program that forgets to would. Turning it off
/// leaves the dtype as it was.
void setAutocast(c10::DeviceType Device, bool Enabled,
                 c10::ScalarType Type = c10::ScalarType::BFloat16);

struct AutocastState {
  bool Enabled;
  c10::ScalarType Type;
};
AutocastState autocastState(c10::DeviceType Device);
void restoreAutocast(c10::DeviceType Device, AutocastState State);

void clearAutocastCache();

/// Autocast on for the scope, and off with a cleared cache after it, as
/// Python's torch.autocast context does.
class AutocastScope {
public:
  AutocastScope(c10::DeviceType Device, c10::ScalarType Type);
  ~AutocastScope();
  AutocastScope(const AutocastScope &) = delete;
  AutocastScope &operator=(const AutocastScope &) = delete;

private:
  c10::DeviceType Device;
};

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_AUTOCAST_H
