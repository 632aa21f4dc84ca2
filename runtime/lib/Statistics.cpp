#include "Statistics.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace torchlint::replay {

const char *verdictName(Verdict V) {
  switch (V) {
  case Verdict::Confirmed:
    return "confirmed";
  case Verdict::NoGain:
    return "no-gain";
  case Verdict::Slower:
    return "slower";
  case Verdict::CrashConfirmed:
    return "crash-confirmed";
  case Verdict::WrongResultConfirmed:
    return "wrong-result-confirmed";
  case Verdict::NotRun:
    return "not-run";
  }
  return "not-run";
}

double median(std::vector<double> Samples) {
  if (Samples.empty())
    throw std::invalid_argument("median of no samples");
  auto Middle = Samples.begin() + Samples.size() / 2;
  std::nth_element(Samples.begin(), Middle, Samples.end());
  if (Samples.size() % 2 == 1)
    return *Middle;
  double Upper = *Middle;
  double Lower = *std::max_element(Samples.begin(), Middle);
  return (Lower + Upper) / 2;
}

namespace {

/// The q-quantile of sorted values, interpolating linearly between ranks.
double quantile(const std::vector<double> &Sorted, double Q) {
  double Rank = Q * static_cast<double>(Sorted.size() - 1);
  auto Below = static_cast<size_t>(std::floor(Rank));
  size_t Above = std::min(Below + 1, Sorted.size() - 1);
  double Weight = Rank - static_cast<double>(Below);
  return Sorted[Below] * (1 - Weight) + Sorted[Above] * Weight;
}

std::vector<double> resample(const std::vector<double> &Samples,
                             std::mt19937_64 &Random) {
  std::uniform_int_distribution<size_t> Pick(0, Samples.size() - 1);
  std::vector<double> Drawn(Samples.size());
  for (double &Value : Drawn)
    Value = Samples[Pick(Random)];
  return Drawn;
}

} // namespace

RatioEstimate speedUp(const std::vector<double> &Original,
                      const std::vector<double> &Fixed, unsigned Resamples,
                      std::uint64_t Seed) {
  if (Original.empty() || Fixed.empty())
    throw std::invalid_argument("a speed-up needs samples of both variants");
  RatioEstimate R;
  R.Ratio = median(Original) / median(Fixed);
  R.Resamples = Resamples;
  std::mt19937_64 Random(Seed);
  std::vector<double> Ratios;
  Ratios.reserve(Resamples);
  for (unsigned I = 0; I < Resamples; ++I)
    Ratios.push_back(median(resample(Original, Random)) /
                     median(resample(Fixed, Random)));
  std::sort(Ratios.begin(), Ratios.end());
  R.Low = quantile(Ratios, 0.025);
  R.High = quantile(Ratios, 0.975);
  return R;
}

Verdict speedVerdict(const RatioEstimate &R) {
  if (R.Low > GainThreshold)
    return Verdict::Confirmed;
  if (R.High < LossThreshold)
    return Verdict::Slower;
  return Verdict::NoGain;
}

} // namespace torchlint::replay
