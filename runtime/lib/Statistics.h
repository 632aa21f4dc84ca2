//===--- Statistics.h - Speed-up ratios and their verdicts ------*- C++ -*-===//
//
// A fix is called faster only when the evidence says so: the speed-up is the
// ratio of the medians of the original's and the fixed variant's timings,
// with a 95% percentile-bootstrap confidence interval, and the verdict reads
// the interval, not the point estimate.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_STATISTICS_H
#define TORCHLINT_RUNTIME_STATISTICS_H

#include <cstdint>
#include <string>
#include <vector>

namespace torchlint::replay {

enum class Verdict {
  Confirmed,      // the interval lies above GainThreshold
  NoGain,         // the interval reaches into [LossThreshold, GainThreshold]
  Slower,         // the interval lies below LossThreshold
  CrashConfirmed, // the original raises and the fix runs
  WrongResultConfirmed, // the original computes a wrong result, the fix not
  NotRun,               // with a reason; never a crash
};

const char *verdictName(Verdict V);

/// A speed-up must exceed 5% at the interval's lower bound to count, and a
/// slow-down likewise at its upper bound.
constexpr double GainThreshold = 1.05;
constexpr double LossThreshold = 0.95;

double median(std::vector<double> Samples);

struct RatioEstimate {
  double Ratio = 0; // median(original) / median(fixed)
  double Low = 0;   // 2.5th percentile of the bootstrap distribution
  double High = 0;  // 97.5th percentile
  unsigned Resamples = 0;
};

/// The speed-up of Fixed over Original (both in seconds per run). The
/// bootstrap is seeded, so the same samples give the same interval.
RatioEstimate speedUp(const std::vector<double> &Original,
                      const std::vector<double> &Fixed,
                      unsigned Resamples = 2000, std::uint64_t Seed = 1);

/// The verdict an interval supports: Confirmed, NoGain or Slower.
Verdict speedVerdict(const RatioEstimate &R);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_STATISTICS_H
