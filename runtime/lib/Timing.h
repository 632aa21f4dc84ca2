//===--- Timing.h - Timing an original against its fix ----------*- C++ -*-===//
//
// A loop runs its steps back to back: the host queues the next step while
// the device runs this one, and the launch and synchronization latency of a
// step is hidden behind the others. So each sample here is a batch of
// consecutive steps between two synchronizations (device events on CUDA,
// where this libtorch offers them), divided by their count: enough steps
// that the batch lasts well over that latency, chosen per variant by a
// short calibration and capped by the budget. Warm-up runs and the
// calibration are excluded. Both variants are timed in alternation, so that
// drift of the machine (clock boost, a neighbour's load) affects both alike;
// the interval is over the batches.
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
  /// Each variant is timed in at least MinRepeats and at most MaxRepeats
  /// batches; between them, until the budget is spent.
  unsigned MinRepeats = 5;
  unsigned MaxRepeats = 30;
  double BudgetSeconds = 10;
  /// A batch should last at least this long: a launch and a synchronization
  /// cost tens of microseconds, so they are then a small part of it.
  double BatchSeconds = 0.02;
  unsigned MaxStepsPerBatch = 1024;
};

struct TimedSamples {
  std::vector<double> Original; // seconds per step, one sample per batch
  std::vector<double> Fixed;
  std::string Clock;          // "cuda-events" or "steady-clock"
  unsigned OriginalSteps = 1; // steps per batch
  unsigned FixedSteps = 1;
};

/// Seconds that Steps consecutive runs of Work take together, the device
/// idle before and after and not synchronized between them.
using BatchTimer =
    std::function<double(const std::function<void()> &Work, unsigned Steps)>;

/// The timer of Device: CUDA events where available, else the steady clock.
BatchTimer batchTimerFor(const c10::Device &Device);

/// Waits for all work queued on the device.
void synchronize(const c10::Device &Device);

/// Steps per batch for a step that TimeBatch times: from one step, grown
/// until a batch lasts Options.BatchSeconds, but never over
/// MaxStepsPerBatch, nor so many that MinRepeats batches of each of
/// Variants variants would take over half the budget; the calibration
/// itself stops once it has spent a tenth of the budget.
unsigned calibrateSteps(const std::function<double(unsigned Steps)> &TimeBatch,
                        const TimingOptions &Options, unsigned Variants);

/// One variant alone: warm-up, calibration, then batches until the options
/// say stop. Steps, when given, receives the steps per batch.
std::vector<double> timeRepeatedly(const BatchTimer &Timer,
                                   const std::function<void()> &Work,
                                   const TimingOptions &Options,
                                   unsigned *Steps = nullptr);
std::vector<double> timeRepeatedly(const c10::Device &Device,
                                   const std::function<void()> &Work,
                                   const TimingOptions &Options,
                                   unsigned *Steps = nullptr);

/// "cuda-events" or "steady-clock": how Device's runs are timed.
std::string clockFor(const c10::Device &Device);

TimedSamples timeAlternately(const BatchTimer &Timer,
                             const std::function<void()> &Original,
                             const std::function<void()> &Fixed,
                             const TimingOptions &Options);
TimedSamples timeAlternately(const c10::Device &Device,
                             const std::function<void()> &Original,
                             const std::function<void()> &Fixed,
                             const TimingOptions &Options);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_TIMING_H
