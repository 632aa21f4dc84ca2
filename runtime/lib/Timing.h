//===--- Timing.h - Timing an original against its fix ----------*- C++ -*-===//
//
// Both variants are timed in alternation, so that drift of the machine (clock
// boost, a neighbour's load) affects both alike. Warm-up runs are excluded;
// the device is synchronised around every timed region, and on CUDA the
// region is timed by device events where this libtorch offers them.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_TIMING_H
#define TORCHLINT_RUNTIME_TIMING_H

#include <c10/core/Device.h>

#include <functional>
#include <string>
#include <vector>

namespace torchlint::replay {

struct TimingOptions {
  unsigned WarmUp = 2;
  /// Each variant runs at least MinRepeats and at most MaxRepeats times;
  /// between them, until the budget is spent.
  unsigned MinRepeats = 5;
  unsigned MaxRepeats = 30;
  double BudgetSeconds = 10;
};

struct TimedSamples {
  std::vector<double> Original; // seconds per run
  std::vector<double> Fixed;
  std::string Clock; // "cuda-events" or "steady-clock"
};

/// Waits for all work queued on the device.
void synchronize(const c10::Device &Device);

/// One variant alone: warm-up, then runs until the options say stop.
std::vector<double> timeRepeatedly(const c10::Device &Device,
                                   const std::function<void()> &Work,
                                   const TimingOptions &Options);

/// "cuda-events" or "steady-clock": how Device's runs are timed.
std::string clockFor(const c10::Device &Device);

TimedSamples timeAlternately(const c10::Device &Device,
                             const std::function<void()> &Original,
                             const std::function<void()> &Fixed,
                             const TimingOptions &Options);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_TIMING_H
