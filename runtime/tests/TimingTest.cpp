//===--- TimingTest.cpp - Batches of steps, as a loop runs them -----------===//
//
// The batching and calibration logic, on a virtual clock: each step adds
// its cost to the clock, and each batch pays a fixed latency on top (the
// launch and synchronization a loop hides behind its other steps). No test
// here depends on how fast this machine is.
//
//===----------------------------------------------------------------------===//

#include "Timing.h"
#include "Statistics.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace torchlint::replay {
namespace {

/// Seconds per batch of Steps steps of StepSeconds each, plus Latency.
std::function<double(unsigned)> linearBatch(double StepSeconds,
                                            double Latency = 50e-6) {
  return [=](unsigned Steps) { return Steps * StepSeconds + Latency; };
}

TEST(Calibration, ALongStepIsTimedAlone) {
  TimingOptions Options;
  EXPECT_EQ(calibrateSteps(linearBatch(0.1), Options, 2), 1u);
}

TEST(Calibration, ShortStepsAreBatchedUntilTheBatchOutlastsTheLatency) {
  TimingOptions Options;
  unsigned Steps = calibrateSteps(linearBatch(1e-3), Options, 2);
  EXPECT_GE(Steps * 1e-3, Options.BatchSeconds);
  EXPECT_LE(Steps * 1e-3, 4 * Options.BatchSeconds) << "no more than needed";
}

TEST(Calibration, TheCapBoundsATinyStep) {
  TimingOptions Options;
  EXPECT_EQ(calibrateSteps(linearBatch(1e-7), Options, 2),
            Options.MaxStepsPerBatch);
}

TEST(Calibration, TheFewestBatchesFitInHalfTheBudget) {
  TimingOptions Options;
  Options.BudgetSeconds = 0.05;
  Options.MinRepeats = 5;
  // 5 batches of each of 2 variants in 25 ms: 2 steps of 1 ms each.
  EXPECT_EQ(calibrateSteps(linearBatch(1e-3), Options, 2), 2u);
}

TEST(Calibration, SpendsAtMostATenthOfTheBudget) {
  TimingOptions Options;
  Options.BudgetSeconds = 1;
  double Spent = 0;
  calibrateSteps(
      [&](unsigned Steps) {
        double Batch = Steps * 4e-3;
        Spent += Batch;
        return Batch;
      },
      Options, 1);
  EXPECT_LE(Spent, Options.BudgetSeconds / 10);
}

/// A device on a virtual clock: Cost[V] per step of variant V, Latency per
/// batch; records which variant each batch ran.
struct VirtualDevice {
  double Clock = 0;
  double Latency = 50e-6;
  std::vector<char> Batches;
  BatchTimer timer() {
    return [this](const std::function<void()> &Work, unsigned Steps) {
      double Begin = Clock;
      for (unsigned I = 0; I < Steps; ++I)
        Work();
      return Clock - Begin + Latency;
    };
  }
};

TEST(Batches, ALaunchBoundFixIsMeasuredAsALoopRunsIt) {
  // 10 us against 2 us of work per step: a loop gains 5x. One step between
  // two synchronizations pays 50 us of latency each and shows 1.15x.
  VirtualDevice Device;
  auto Original = [&] { Device.Clock += 10e-6; };
  auto Fixed = [&] { Device.Clock += 2e-6; };
  TimingOptions Options;
  TimedSamples Batched =
      timeAlternately(Device.timer(), Original, Fixed, Options);
  EXPECT_GT(Batched.OriginalSteps, 1u);
  EXPECT_GE(Batched.FixedSteps, Batched.OriginalSteps);
  double Ratio = speedUp(Batched.Original, Batched.Fixed).Ratio;
  EXPECT_NEAR(Ratio, 5.0, 0.25);

  TimingOptions OneStep = Options;
  OneStep.MaxStepsPerBatch = 1;
  TimedSamples Single =
      timeAlternately(Device.timer(), Original, Fixed, OneStep);
  EXPECT_EQ(Single.OriginalSteps, 1u);
  EXPECT_NEAR(speedUp(Single.Original, Single.Fixed).Ratio, 60.0 / 52.0, 0.01);
}

TEST(Batches, EachSampleIsTheTimeOfOneStep) {
  VirtualDevice Device;
  Device.Latency = 0;
  unsigned Steps = 0;
  std::vector<double> Samples = timeRepeatedly(
      Device.timer(), [&] { Device.Clock += 1e-3; }, TimingOptions(), &Steps);
  EXPECT_GT(Steps, 1u);
  ASSERT_FALSE(Samples.empty());
  for (double Sample : Samples)
    EXPECT_NEAR(Sample, 1e-3, 1e-12);
}

TEST(Batches, WarmUpAndCalibrationAreNotSamplesAndTheVariantsAlternate) {
  VirtualDevice Device;
  TimingOptions Options;
  Options.WarmUp = 3;
  Options.MinRepeats = 4;
  Options.MaxRepeats = 6;
  unsigned OriginalRuns = 0, FixedRuns = 0;
  std::vector<char> Order;
  auto Timer = [&](const std::function<void()> &Work, unsigned Steps) {
    unsigned Before = OriginalRuns;
    double Seconds = Device.timer()(Work, Steps);
    Order.push_back(OriginalRuns != Before ? 'o' : 'f');
    return Seconds;
  };
  TimedSamples Samples = timeAlternately(
      Timer,
      [&] {
        ++OriginalRuns;
        Device.Clock += 1e-3;
      },
      [&] {
        ++FixedRuns;
        Device.Clock += 5e-4;
      },
      Options);
  ASSERT_EQ(Samples.Original.size(), Samples.Fixed.size());
  EXPECT_GE(Samples.Original.size(), Options.MinRepeats);
  EXPECT_LE(Samples.Original.size(), Options.MaxRepeats);
  // The last 2 * batches timer calls are the samples, alternating which
  // variant goes first.
  size_t Batches = Samples.Original.size();
  std::string Timed(Order.end() - 2 * Batches, Order.end());
  for (size_t I = 0; I < Batches; ++I)
    EXPECT_EQ(Timed.substr(2 * I, 2), I % 2 == 0 ? "of" : "fo") << Timed;
  // Before them: one step of each per warm-up, then at least one
  // calibration batch of each; none of them is a sample.
  EXPECT_EQ(std::string(Order.begin(), Order.begin() + 6), "ofofof");
  EXPECT_GE(Order.size(), 2 * Options.WarmUp + 2 + 2 * Batches);
  for (double Sample : Samples.Original)
    EXPECT_NEAR(Sample,
                (Samples.OriginalSteps * 1e-3 + Device.Latency) /
                    Samples.OriginalSteps,
                1e-12);
}

TEST(Batches, TheCpuTimerWaitsForEveryStep) {
  BatchTimer Timer = batchTimerFor(c10::Device("cpu"));
  double Seconds = Timer(
      [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }, 3);
  EXPECT_GE(Seconds, 6e-3);
}

} // namespace
} // namespace torchlint::replay
