//===--- AutocastFlow.h - Whether autocast is on, path by path --*- C++ -*-===//
//
// libtorch's autocast has no guard object: a region is whatever runs between
// the calls that turn it on and off, so whether autocast is on at a statement
// depends on the paths that reach it, through branches and loops. This
// lattice follows, per device, which switches may be in effect on the paths
// to each statement of a function, on the shared engine.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_AUTOCASTFLOW_H
#define TORCHLINT_ANALYSIS_AUTOCASTFLOW_H

#include "analysis/ForwardFlow.h"
#include "analysis/FunctionCfg.h"
#include "api/AutocastApi.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <optional>

namespace clang {
class ASTContext;
class CallExpr;
class Stmt;
} // namespace clang

namespace torchlint {

/// What the switches on the paths to a statement may have left autocast for
/// one device at: each possibility that some path gives.
struct AutocastSetting {
  /// No switch on some path: the caller's setting holds.
  bool MayBeUndecided = false;
  bool MayBeOn = false;
  bool MayBeOff = false;
  /// Set from a value known only at run time (a saved state restored).
  bool MayBeFromValue = false;
  /// A switch-on that some path ends with, for the note.
  const clang::CallExpr *TurnedOn = nullptr;
  /// The dtype choice (set_autocast_gpu_dtype, set_autocast_dtype) some path
  /// made last, for CUDA; switches on and off leave it as it is.
  const clang::CallExpr *Dtype = nullptr;

  /// Some path reaches the statement.
  bool reached() const {
    return MayBeUndecided || MayBeOn || MayBeOff || MayBeFromValue;
  }

  /// Some path to S turns autocast on and leaves it on: what "autocast is on
  /// here" means to the rules. The caller's setting is not guessed at.
  bool isOn() const { return MayBeOn; }

  bool operator==(const AutocastSetting &O) const {
    return MayBeUndecided == O.MayBeUndecided && MayBeOn == O.MayBeOn &&
           MayBeOff == O.MayBeOff && MayBeFromValue == O.MayBeFromValue &&
           TurnedOn == O.TurnedOn && Dtype == O.Dtype;
  }
};

class AutocastFlow {
public:
  AutocastFlow(clang::ASTContext &Ctx, FunctionCfgCache &Cfgs);
  ~AutocastFlow();

  /// Autocast for Device right before S runs, from S's function (a lambda's
  /// body is a function of its own). Nullopt when S is in no function with a
  /// CFG, or on no path from its entry.
  std::optional<AutocastSetting> before(const clang::Stmt *S,
                                        api::DeviceKind Device);

  clang::ASTContext &astContext() const { return Ctx; }

  struct Lattice;

private:
  clang::ASTContext &Ctx;
  FunctionCfgCache &Cfgs;
  FunctionFlows<Lattice> Flows;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_AUTOCASTFLOW_H
