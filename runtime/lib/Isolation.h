//===--- Isolation.h - A variant timed in a process of its own --*- C++ -*-===//
//
// Some state cannot be reset between two variants: cuDNN remembers the
// algorithm it chose for a convolution shape, whatever the benchmark flag
// said when it chose, so a benchmark-on run after a benchmark-off run of the
// same shapes reuses the untuned choice. Such variants run each in a fresh
// torchlint-replay process (--run-variant), which times it and prints its
// samples and first result as one line of JSON.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_ISOLATION_H
#define TORCHLINT_RUNTIME_ISOLATION_H

#include "Scenario.h"

namespace torchlint::replay {

struct ChildSamples {
  std::vector<double> Seconds; // per step, one sample per batch
  std::string Clock;
  unsigned Steps = 1; // steps per batch
  at::Tensor Result;  // on the CPU
};

/// Runs Scenario's original (or fixed) variant in a child process. Throws
/// std::runtime_error with the child's error when it fails.
ChildSamples timeInChild(const ReplayContext &Ctx, const std::string &Scenario,
                         bool Fixed, const nlohmann::json &Recipe);

/// Times Scenario's original and fixed variants each in a child process, one
/// after the other on half of Ctx's time budget, and judges the speed-up
/// from their float results and samples.
ScenarioOutcome compareSpeedInChildren(const ReplayContext &Ctx,
                                       const std::string &Scenario,
                                       const nlohmann::json &Recipe);

/// The child's side of --run-variant: Arguments are SCENARIO
/// original|fixed RECIPE-FILE DEVICE MIN-REPEATS MAX-REPEATS BUDGET.
/// Returns the exit status.
int runVariantHere(const std::vector<std::string> &Arguments);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_ISOLATION_H
