#include "Timing.h"

#include <torch/cuda.h>

#ifdef TORCHLINT_EVENT_ELAPSED_TIME
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>

namespace torchlint::replay {

void synchronize(const c10::Device &Device) {
  if (Device.is_cuda())
    torch::cuda::synchronize(Device.has_index() ? Device.index() : -1);
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration D) {
  return std::chrono::duration<double>(D).count();
}

void runSteps(const std::function<void()> &Work, unsigned Steps) {
  for (unsigned I = 0; I < Steps; ++I)
    Work();
}

} // namespace

BatchTimer batchTimerFor(const c10::Device &Device) {
  return [Device](const std::function<void()> &Work, unsigned Steps) {
    synchronize(Device);
#ifdef TORCHLINT_EVENT_ELAPSED_TIME
    if (Device.is_cuda()) {
      c10::impl::VirtualGuardImpl Guard(c10::DeviceType::CUDA);
      c10::Stream Stream = Guard.getStream(Device);
      c10::Event Start(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT);
      c10::Event Stop(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT);
      Start.record(Stream);
      runSteps(Work, Steps);
      Stop.record(Stream);
      synchronize(Device);
      return Start.elapsedTime(Stop) / 1000.0;
    }
#endif
    Clock::time_point Begin = Clock::now();
    runSteps(Work, Steps);
    synchronize(Device);
    return seconds(Clock::now() - Begin);
  };
}

std::string clockFor(const c10::Device &Device) {
#ifdef TORCHLINT_EVENT_ELAPSED_TIME
  if (Device.is_cuda())
    return "cuda-events";
#endif
  (void)Device;
  return "steady-clock";
}

unsigned calibrateSteps(const std::function<double(unsigned Steps)> &TimeBatch,
                        const TimingOptions &Options, unsigned Variants) {
  unsigned Cap = std::max(1u, Options.MaxStepsPerBatch);
  double Spent = 0;
  unsigned Steps = 1;
  for (;;) {
    double Batch = TimeBatch(Steps);
    Spent += Batch;
    double PerStep = std::max(Batch / Steps, 1e-9);
    // What the batches may cost: half the budget for the fewest batches.
    double Affordable =
        Options.BudgetSeconds / 2 /
        (std::max(1u, Options.MinRepeats) * std::max(1u, Variants) * PerStep);
    unsigned Limit = static_cast<unsigned>(
        std::clamp(std::floor(Affordable), 1.0, static_cast<double>(Cap)));
    if (Steps > Limit)
      return Limit;
    if (Batch >= Options.BatchSeconds || Steps >= Limit)
      return Steps;
    // Aim at the target from this estimate, growing at most eightfold a
    // time: a first step can be slower than the rest (lazy allocation).
    double Wanted = std::ceil(Options.BatchSeconds / PerStep);
    unsigned Next =
        static_cast<unsigned>(std::clamp(Wanted, static_cast<double>(Steps) * 2,
                                         static_cast<double>(Steps) * 8));
    Next = std::min(Next, Limit);
    if (Spent + Next * PerStep > Options.BudgetSeconds / 10)
      return Steps;
    Steps = Next;
  }
}

std::vector<double> timeRepeatedly(const BatchTimer &Timer,
                                   const std::function<void()> &Work,
                                   const TimingOptions &Options,
                                   unsigned *StepsOut) {
  for (unsigned I = 0; I < Options.WarmUp; ++I)
    Timer(Work, 1);
  unsigned Steps =
      calibrateSteps([&](unsigned N) { return Timer(Work, N); }, Options, 1);
  if (StepsOut)
    *StepsOut = Steps;
  std::vector<double> Samples;
  Clock::time_point Begin = Clock::now();
  while (Samples.size() < Options.MaxRepeats &&
         (Samples.size() < Options.MinRepeats ||
          seconds(Clock::now() - Begin) < Options.BudgetSeconds))
    Samples.push_back(Timer(Work, Steps) / Steps);
  return Samples;
}

std::vector<double> timeRepeatedly(const c10::Device &Device,
                                   const std::function<void()> &Work,
                                   const TimingOptions &Options,
                                   unsigned *Steps) {
  return timeRepeatedly(batchTimerFor(Device), Work, Options, Steps);
}

TimedSamples timeAlternately(const BatchTimer &Timer,
                             const std::function<void()> &Original,
                             const std::function<void()> &Fixed,
                             const TimingOptions &Options) {
  TimedSamples Samples;
  for (unsigned I = 0; I < Options.WarmUp; ++I) {
    Timer(Original, 1);
    Timer(Fixed, 1);
  }
  // Each variant's own batch: a fix that makes a step ten times shorter
  // needs ten times the steps for its batch to outlast the latency.
  Samples.OriginalSteps = calibrateSteps(
      [&](unsigned N) { return Timer(Original, N); }, Options, 2);
  Samples.FixedSteps =
      calibrateSteps([&](unsigned N) { return Timer(Fixed, N); }, Options, 2);
  auto TimeOriginal = [&] {
    Samples.Original.push_back(Timer(Original, Samples.OriginalSteps) /
                               Samples.OriginalSteps);
  };
  auto TimeFixed = [&] {
    Samples.Fixed.push_back(Timer(Fixed, Samples.FixedSteps) /
                            Samples.FixedSteps);
  };
  Clock::time_point Begin = Clock::now();
  while (Samples.Original.size() < Options.MaxRepeats) {
    bool Enough = Samples.Original.size() >= Options.MinRepeats;
    if (Enough && seconds(Clock::now() - Begin) >= Options.BudgetSeconds)
      break;
    // Alternate which variant goes first, so neither always runs on a
    // device the other just warmed.
    if (Samples.Original.size() % 2 == 0) {
      TimeOriginal();
      TimeFixed();
    } else {
      TimeFixed();
      TimeOriginal();
    }
  }
  return Samples;
}

TimedSamples timeAlternately(const c10::Device &Device,
                             const std::function<void()> &Original,
                             const std::function<void()> &Fixed,
                             const TimingOptions &Options) {
  TimedSamples Samples =
      timeAlternately(batchTimerFor(Device), Original, Fixed, Options);
  Samples.Clock = clockFor(Device);
  return Samples;
}

} // namespace torchlint::replay
