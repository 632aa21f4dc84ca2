//===--- EnvironmentApi.h - Settings of environment variables ---*- C++ -*-===//
//
// CUDA and libtorch read switches from the environment (CUDA_VISIBLE_DEVICES,
// CUDA_LAUNCH_BLOCKING); a program that sets them itself does so through the
// C library: setenv(name, value, overwrite), putenv("name=value"), and
// Windows' _putenv and _putenv_s.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_MATCHERS_ENVIRONMENTAPI_H
#define TORCHLINT_MATCHERS_ENVIRONMENTAPI_H

#include "clang/ASTMatchers/ASTMatchers.h"

#include <optional>
#include <string>

namespace clang {
class CallExpr;
} // namespace clang

namespace torchlint::api {

/// The calls that set an environment variable.
clang::ast_matchers::internal::BindableMatcher<clang::Stmt>
environmentSetting();

struct EnvironmentSetting {
  std::string Name;
  /// The value, when the call spells it as a string literal.
  std::optional<std::string> Value;
};

/// What a call environmentSetting() matched sets; nullopt when the name is
/// not a string literal.
std::optional<EnvironmentSetting>
asEnvironmentSetting(const clang::CallExpr *Call);

} // namespace torchlint::api

#endif // TORCHLINT_MATCHERS_ENVIRONMENTAPI_H
