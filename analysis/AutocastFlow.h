//===--- AutocastFlow.h - Whether autocast is on, path by path --*- C++ -*-===//
//
// libtorch's autocast has no guard object: a region is whatever runs between
// the calls that turn it on and off, so whether autocast is on at a statement
// depends on the paths that reach it, through branches and loops. This
// lattice follows, per device (and for switches whose device is chosen at
// run time), which switches may be in effect on the paths to each statement
// of a function, on the shared engine.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_AUTOCASTFLOW_H
#define TORCHLINT_ANALYSIS_AUTOCASTFLOW_H

#include "analysis/ForwardFlow.h"
#include "analysis/FunctionCfg.h"
#include "matchers/AutocastApi.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

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
  /// Every switch-on that some path turned on and has not turned off since
  /// (a later switch-on does not end an earlier one's region), in the order
  /// the flow first met them.
  llvm::SmallVector<const clang::CallExpr *, 1> Open;
  /// The return, throw, break and continue statements that some path left
  /// through while a switch-on was open, with that switch-on: a path that
  /// turns autocast off afterwards drops them.
  llvm::SmallVector<std::pair<const clang::CallExpr *, const clang::Stmt *>, 0>
      LeftWhileOpen;

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
           TurnedOn == O.TurnedOn && Dtype == O.Dtype && Open == O.Open &&
           LeftWhileOpen == O.LeftWhileOpen;
  }
};

/// What the paths to a statement did to CUDA autocast's cast cache, which
/// keeps the low-precision copy of each weight a region casts until it is
/// cleared. Switches for a device chosen at run time count as CUDA's here: a
/// cache left stale on the GPU is the cost worth hearing about.
struct CastCacheSetting {
  /// The CUDA switch-ons that some path left on, as AutocastSetting::Open.
  llvm::SmallVector<const clang::CallExpr *, 1> Open;
  /// Some path cleared the cache and ran no module since.
  bool MayBeCleared = false;
  /// Some path turned caching off (set_autocast_cache_enabled(false)).
  bool MayBeUncached = false;

  bool operator==(const CastCacheSetting &O) const {
    return Open == O.Open && MayBeCleared == O.MayBeCleared &&
           MayBeUncached == O.MayBeUncached;
  }
};

class AutocastFlow {
public:
  AutocastFlow(clang::ASTContext &Ctx, FunctionCfgCache &Cfgs);
  ~AutocastFlow();

  /// Autocast for Device right before S runs, from S's function (a lambda's
  /// body is a function of its own). Device is CUDA, the CPU, or Unknown for
  /// the switches whose device argument is chosen at run time
  /// (set_autocast_enabled(device.type(), true)), followed apart: they turn
  /// on the device the program computes on, whichever it is. Nullopt when S
  /// is in no function with a CFG, or on no path from its entry, or for
  /// another device.
  std::optional<AutocastSetting> before(const clang::Stmt *S,
                                        api::DeviceKind Device);

  /// The cast cache right before S runs; nullopt as for before().
  std::optional<CastCacheSetting> cacheBefore(const clang::Stmt *S);

  /// How Device's autocast may be left when Function returns or throws out
  /// of it: nullopt when no path does, or the flow is not known.
  std::optional<AutocastSetting> atExit(const clang::FunctionDecl *Function,
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
