#include "Autocast.h"

#include <ATen/autocast_mode.h>

namespace torchlint::replay {

namespace {

void setDtype(c10::DeviceType Device, c10::ScalarType Type) {
#ifdef TORCHLINT_AUTOCAST_BY_DEVICE
  at::autocast::set_autocast_dtype(Device, Type);
#else
  if (Device == c10::DeviceType::CUDA)
    at::autocast::set_autocast_gpu_dtype(Type);
  else
    at::autocast::set_autocast_cpu_dtype(Type);
#endif
}

void setEnabled(c10::DeviceType Device, bool Enabled) {
#ifdef TORCHLINT_AUTOCAST_BY_DEVICE
  at::autocast::set_autocast_enabled(Device, Enabled);
#else
  if (Device == c10::DeviceType::CUDA)
    at::autocast::set_enabled(Enabled);
  else
    at::autocast::set_cpu_enabled(Enabled);
#endif
}

} // namespace

void setAutocast(c10::DeviceType Device, bool Enabled, c10::ScalarType Type) {
  if (Enabled)
    setDtype(Device, Type);
  setEnabled(Device, Enabled);
}

AutocastState autocastState(c10::DeviceType Device) {
#ifdef TORCHLINT_AUTOCAST_BY_DEVICE
  return {at::autocast::is_autocast_enabled(Device),
          at::autocast::get_autocast_dtype(Device)};
#else
  if (Device == c10::DeviceType::CUDA)
    return {at::autocast::is_enabled(), at::autocast::get_autocast_gpu_dtype()};
  return {at::autocast::is_cpu_enabled(),
          at::autocast::get_autocast_cpu_dtype()};
#endif
}

void restoreAutocast(c10::DeviceType Device, AutocastState State) {
  setDtype(Device, State.Type);
  setEnabled(Device, State.Enabled);
}

void clearAutocastCache() { at::autocast::clear_cache(); }

AutocastScope::AutocastScope(c10::DeviceType Device, c10::ScalarType Type)
    : Device(Device) {
  setAutocast(Device, true, Type);
}

AutocastScope::~AutocastScope() {
  setAutocast(Device, false);
  clearAutocastCache();
}

} // namespace torchlint::replay
