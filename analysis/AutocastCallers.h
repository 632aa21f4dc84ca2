//===--- AutocastCallers.h - Autocast its callers left on ------*- C++ -*-===//
//
// libtorch's autocast is process state, not a guard: a function that never
// switches it runs with whatever its callers left, in this unit or in
// another. A loss computer's backward() called from a trainer's step that
// turned autocast on runs under autocast though its own body says nothing.
// This follows a function's calls up through this unit, and through the
// other units' summaries where it has no callers here.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_AUTOCASTCALLERS_H
#define TORCHLINT_ANALYSIS_AUTOCASTCALLERS_H

#include "core/Finding.h"

#include <optional>

namespace clang {
class CallExpr;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace torchlint {

class AutocastFlow;
class DeviceFlow;
class StepContext;

/// Where autocast, on at some statement, was turned on: in this unit, or
/// (another unit's summary tells) in a caller there.
struct AutocastOrigin {
  const clang::CallExpr *Here = nullptr;
  std::optional<Span> Elsewhere;
  explicit operator bool() const { return Here || Elsewhere; }
};

/// Autocast, for CUDA or the CPU, is on when S runs in Function on some
/// path: turned on in Function, or, where no switch on the paths to S
/// decides it, on at some call of Function in this unit, or in another
/// unit as Steps' imports tell (Steps records the question; with Steps
/// null, other units are not asked).
AutocastOrigin autocastOnAt(const clang::Stmt *S,
                            const clang::FunctionDecl *Function,
                            AutocastFlow &Autocast, DeviceFlow &Flow,
                            StepContext *Steps);

/// No switch of autocast on some path to S in its function decides it:
/// the callers' setting holds there.
bool autocastUndecidedAt(const clang::Stmt *S, AutocastFlow &Autocast);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_AUTOCASTCALLERS_H
