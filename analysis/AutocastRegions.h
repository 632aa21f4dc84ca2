//===--- AutocastRegions.h - Which autocast switch is in effect -*- C++ -*-===//
//
// libtorch's autocast has no guard object: a region is whatever runs between
// the calls that turn it on and off, so "is autocast on here" is a question
// about the statements before a point, answered here for every AMP rule.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_AUTOCASTREGIONS_H
#define TORCHLINT_ANALYSIS_AUTOCASTREGIONS_H

#include "api/AutocastApi.h"

#include <optional>

namespace clang {
class ASTContext;
class Stmt;
} // namespace clang

namespace torchlint::autocast {

/// The switch for Device in effect at S, from S's function: the latest
/// statement before S, in a block that encloses S or in a plain `{ ... }`
/// block before S in one, that turns autocast for Device on or off. Nullopt
/// when the function does not decide.
std::optional<AutocastCall> switchBefore(const clang::Stmt *S,
                                         api::DeviceKind Device,
                                         clang::ASTContext &Ctx);

} // namespace torchlint::autocast

#endif // TORCHLINT_ANALYSIS_AUTOCASTREGIONS_H
