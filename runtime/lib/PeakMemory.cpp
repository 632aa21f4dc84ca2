#include "PeakMemory.h"

#include "Timing.h"

#ifdef TORCHLINT_TORCH_HAS_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace torchlint::replay {

std::optional<int64_t> peakAllocatedBytes(const c10::Device &Device,
                                          const std::function<void()> &Work) {
#ifdef TORCHLINT_TORCH_HAS_CUDA
  if (Device.is_cuda()) {
    c10::DeviceIndex Index = Device.has_index() ? Device.index() : 0;
    namespace Allocator = c10::cuda::CUDACachingAllocator;
    synchronize(Device);
    Allocator::resetPeakStats(Index);
    Work();
    synchronize(Device);
    // Index 0 of each statistic is the aggregate over pool kinds.
    return Allocator::getDeviceStats(Index).allocated_bytes[0].peak;
  }
#endif
  (void)Device;
  (void)Work;
  return std::nullopt;
}

} // namespace torchlint::replay
