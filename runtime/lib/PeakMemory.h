//===--- PeakMemory.h - Peak device memory of a piece of work ---*- C++ -*-===//
//
// Read from the CUDA caching allocator's statistics, which only a libtorch
// built with CUDA has: elsewhere this compiles to "not measured".
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_PEAKMEMORY_H
#define TORCHLINT_RUNTIME_PEAKMEMORY_H

#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <optional>

namespace torchlint::replay {

/// The most bytes the allocator held for tensors on Device while Work ran,
/// or nullopt where that cannot be measured (the CPU, a CPU-only libtorch).
std::optional<int64_t> peakAllocatedBytes(const c10::Device &Device,
                                          const std::function<void()> &Work);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_PEAKMEMORY_H
