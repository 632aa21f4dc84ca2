//===--- Autocast.h - libtorch's autocast API, both generations -*- C++ -*-===//
//
// libtorch's C++ autocast is a handful of global switches with no guard
// object: a region is whatever runs between turning it on and off, and what
// Python's context manager does on exit (clear the cast cache, restore the
// previous state) is the program's job. Up to libtorch 2.3 each device has
// functions of its own (set_enabled for CUDA, set_cpu_enabled, ...); from
// 2.4 they take the device type (set_autocast_enabled(at::kCUDA, true)),
// and 2.4 keeps the old names as deprecated wrappers. These helpers read
// both into one vocabulary, for the rules about autocast.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_MATCHERS_AUTOCAST_H
#define TORCHLINT_MATCHERS_AUTOCAST_H

#include "matchers/TorchApi.h"

#include <optional>
#include <string>

namespace clang {
class ASTContext;
class CallExpr;
} // namespace clang

namespace torchlint::autocast {

enum class Action {
  Enable,
  Disable,
  /// Set to a value known only at run time: the restore of a saved state.
  SetFromValue,
  ClearCache,
  /// set_autocast_cache_enabled(false): casts are not kept at all.
  DisableCache,
  SetDtype,
  IncrementNesting,
  DecrementNesting,
};

/// One call of libtorch's autocast API.
struct AutocastCall {
  const clang::CallExpr *Call = nullptr;
  Action What = Action::Enable;
  /// The device the call is about (switches and dtypes); Unknown when the
  /// device is not a constant.
  api::DeviceKind Device = api::DeviceKind::Unknown;
  /// A 2.4 name, taking the device type as its first argument.
  bool TakesDevice = false;
  /// For SetDtype: "float16", "bfloat16", ...; empty when not a constant.
  std::string Dtype;

  bool isSwitch() const {
    return What == Action::Enable || What == Action::Disable ||
           What == Action::SetFromValue;
  }
};

/// The call, read as an autocast call, or nullopt when it is not one.
std::optional<AutocastCall> classify(const clang::CallExpr *Call,
                                     const clang::ASTContext &Ctx);

/// The dtype a CUDA autocast region computes in when the program never sets
/// one.
inline constexpr const char *DefaultCudaDtype = "float16";

} // namespace torchlint::autocast

#endif // TORCHLINT_MATCHERS_AUTOCAST_H
