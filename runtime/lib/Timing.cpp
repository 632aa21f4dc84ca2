#include "Timing.h"

#include <torch/cuda.h>

#ifdef TORCHLINT_EVENT_ELAPSED_TIME
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#endif

#include <chrono>

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

/// Seconds one run of Work takes, the device idle before and after.
double timeOnce(const c10::Device &Device, const std::function<void()> &Work) {
  synchronize(Device);
#ifdef TORCHLINT_EVENT_ELAPSED_TIME
  if (Device.is_cuda()) {
    c10::impl::VirtualGuardImpl Guard(c10::DeviceType::CUDA);
    c10::Stream Stream = Guard.getStream(Device);
    c10::Event Start(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT);
    c10::Event Stop(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT);
    Start.record(Stream);
    Work();
    Stop.record(Stream);
    synchronize(Device);
    return Start.elapsedTime(Stop) / 1000.0;
  }
#endif
  Clock::time_point Begin = Clock::now();
  Work();
  synchronize(Device);
  return seconds(Clock::now() - Begin);
}

} // namespace

std::string clockFor(const c10::Device &Device) {
#ifdef TORCHLINT_EVENT_ELAPSED_TIME
  if (Device.is_cuda())
    return "cuda-events";
#endif
  (void)Device;
  return "steady-clock";
}

std::vector<double> timeRepeatedly(const c10::Device &Device,
                                   const std::function<void()> &Work,
                                   const TimingOptions &Options) {
  for (unsigned I = 0; I < Options.WarmUp; ++I)
    timeOnce(Device, Work);
  std::vector<double> Samples;
  Clock::time_point Begin = Clock::now();
  while (Samples.size() < Options.MaxRepeats &&
         (Samples.size() < Options.MinRepeats ||
          seconds(Clock::now() - Begin) < Options.BudgetSeconds))
    Samples.push_back(timeOnce(Device, Work));
  return Samples;
}

TimedSamples timeAlternately(const c10::Device &Device,
                             const std::function<void()> &Original,
                             const std::function<void()> &Fixed,
                             const TimingOptions &Options) {
  TimedSamples Samples;
  Samples.Clock = clockFor(Device);
  for (unsigned I = 0; I < Options.WarmUp; ++I) {
    timeOnce(Device, Original);
    timeOnce(Device, Fixed);
  }
  Clock::time_point Begin = Clock::now();
  while (Samples.Original.size() < Options.MaxRepeats) {
    bool Enough = Samples.Original.size() >= Options.MinRepeats;
    if (Enough && seconds(Clock::now() - Begin) >= Options.BudgetSeconds)
      break;
    // Alternate which variant goes first, so neither always runs on a
    // device the other just warmed.
    if (Samples.Original.size() % 2 == 0) {
      Samples.Original.push_back(timeOnce(Device, Original));
      Samples.Fixed.push_back(timeOnce(Device, Fixed));
    } else {
      Samples.Fixed.push_back(timeOnce(Device, Fixed));
      Samples.Original.push_back(timeOnce(Device, Original));
    }
  }
  return Samples;
}

} // namespace torchlint::replay
