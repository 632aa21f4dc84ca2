//===--- Timing.h - Intervals that programs time ----------------*- C++ -*-===//
//
// Programs time their GPU work with the host's clocks: two reads of
// std::chrono's clocks, clock(), gettimeofday() or clock_gettime(), and the
// difference of the two. GPU work is queued and runs later, so an interval
// that ends before a synchronizing point measures the launch of the work,
// not the work. This analysis finds the intervals (a subtraction of one
// clock value from another, each traced back to the reads that give it) and
// answers, on the function's CFG, whether GPU work runs inside one with no
// wait for the GPU before its end.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_TIMING_H
#define TORCHLINT_ANALYSIS_TIMING_H

#include "analysis/DeviceFlow.h"

#include <vector>

namespace clang {
class Expr;
class FunctionDecl;
} // namespace clang

namespace torchlint {

/// A read of a host clock: `std::chrono::steady_clock::now()` (any clock of
/// std::chrono), `clock()`, `gettimeofday(&t, ...)`, `clock_gettime(c, &t)`,
/// `timespec_get(&t, ...)`.
bool isClockRead(const clang::Expr *E);

/// GPU work that E queues: a module call whose module or result some path
/// puts on an accelerator, or a backward pass over such a tensor. Work is
/// the facts of that device, for the message; nullopt for anything else.
std::optional<FactSet> gpuWorkAt(const clang::Expr *E, DeviceFlow &Flow);

/// E waits for the GPU: a host sync of HostSyncs.h, or a call of a function
/// of the program that does (two calls deep).
bool synchronizesWithGpu(const clang::Expr *E, DeviceFlow &Flow);

/// An interval whose end comes before the GPU finishes the work inside it.
struct UnsynchronizedInterval {
  const clang::Expr *Start;
  const clang::Expr *End;
  /// The last GPU work before End on the path, with its devices.
  const clang::Expr *Work;
  FactSet WorkDevices;
  /// The subtraction that makes it an interval.
  const clang::Expr *Difference;
};

/// The intervals of Function's body (lambdas are functions of their own)
/// whose end some path reaches from GPU work with no wait for the GPU in
/// between, in source order of their ends, each end once.
std::vector<UnsynchronizedInterval>
unsynchronizedIntervals(const clang::FunctionDecl *Function, DeviceFlow &Flow);

/// E (a host sync) is followed, on some path and before any GPU work, by a
/// clock read that starts or ends a timed interval of its function: a wait
/// that lets the interval measure its own work (the GPU idle at its start,
/// done at its end).
bool bracketsTimedInterval(const clang::Expr *E, DeviceFlow &Flow);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_TIMING_H
