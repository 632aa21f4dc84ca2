#include "Statistics.h"

#include <gtest/gtest.h>

#include <random>

using namespace torchlint::replay;

namespace {

/// Samples around Center with multiplicative noise of about 2%.
std::vector<double> noisy(double Center, unsigned Count, unsigned Seed) {
  std::mt19937 Random(Seed);
  std::normal_distribution<double> Noise(1.0, 0.02);
  std::vector<double> Samples;
  for (unsigned I = 0; I < Count; ++I)
    Samples.push_back(Center * Noise(Random));
  return Samples;
}

} // namespace

TEST(Statistics, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({5}), 5);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(Statistics, TwiceAsFastIsConfirmedWithTheTrueRatioInside) {
  RatioEstimate R = speedUp(noisy(10e-3, 30, 1), noisy(5e-3, 30, 2));
  EXPECT_NEAR(R.Ratio, 2.0, 0.05);
  EXPECT_LT(R.Low, 2.0);
  EXPECT_GT(R.High, 2.0);
  EXPECT_GT(R.Low, GainThreshold);
  EXPECT_EQ(speedVerdict(R), Verdict::Confirmed);
}

TEST(Statistics, SameDistributionIsNoGainWithOneInside) {
  RatioEstimate R = speedUp(noisy(4e-3, 30, 3), noisy(4e-3, 30, 4));
  EXPECT_LT(R.Low, 1.0);
  EXPECT_GT(R.High, 1.0);
  EXPECT_EQ(speedVerdict(R), Verdict::NoGain);
}

TEST(Statistics, TwiceAsSlowIsSlower) {
  RatioEstimate R = speedUp(noisy(5e-3, 30, 5), noisy(10e-3, 30, 6));
  EXPECT_NEAR(R.Ratio, 0.5, 0.02);
  EXPECT_LT(R.High, LossThreshold);
  EXPECT_EQ(speedVerdict(R), Verdict::Slower);
}

TEST(Statistics, FewNoisySamplesGiveAWideInterval) {
  std::vector<double> Original{1, 3, 1, 3, 2}, Fixed{1, 2, 3, 1, 2};
  RatioEstimate R = speedUp(Original, Fixed);
  EXPECT_LT(R.Low, 1.0);
  EXPECT_GT(R.High, 1.0);
  EXPECT_EQ(speedVerdict(R), Verdict::NoGain);
}

TEST(Statistics, TheBootstrapIsReproducible) {
  std::vector<double> A = noisy(3, 20, 7), B = noisy(2, 20, 8);
  RatioEstimate First = speedUp(A, B), Second = speedUp(A, B);
  EXPECT_EQ(First.Low, Second.Low);
  EXPECT_EQ(First.High, Second.High);
  EXPECT_EQ(First.Resamples, 2000u);
}

TEST(Statistics, VerdictThresholdsReadTheInterval) {
  EXPECT_EQ(speedVerdict({1.3, 1.06, 1.5, 1}), Verdict::Confirmed);
  // A gain whose lower bound is below 5% is not claimed.
  EXPECT_EQ(speedVerdict({1.3, 1.04, 1.5, 1}), Verdict::NoGain);
  EXPECT_EQ(speedVerdict({1.0, 0.9, 1.1, 1}), Verdict::NoGain);
  EXPECT_EQ(speedVerdict({0.9, 0.8, 0.96, 1}), Verdict::NoGain);
  EXPECT_EQ(speedVerdict({0.8, 0.7, 0.94, 1}), Verdict::Slower);
}

TEST(Statistics, EmptySamplesAreRefused) {
  EXPECT_THROW(speedUp({}, {1.0}), std::invalid_argument);
  EXPECT_THROW(speedUp({1.0}, {}), std::invalid_argument);
}

TEST(Statistics, VerdictNames) {
  EXPECT_STREQ(verdictName(Verdict::Confirmed), "confirmed");
  EXPECT_STREQ(verdictName(Verdict::NoGain), "no-gain");
  EXPECT_STREQ(verdictName(Verdict::Slower), "slower");
  EXPECT_STREQ(verdictName(Verdict::CrashConfirmed), "crash-confirmed");
  EXPECT_STREQ(verdictName(Verdict::WrongResultConfirmed),
               "wrong-result-confirmed");
  EXPECT_STREQ(verdictName(Verdict::NotRun), "not-run");
}
