//===--- GlobalState.h - Process-wide switches, kept per replay -*- C++ -*-===//
//
// Scenarios flip libtorch's process-wide switches: autocast (on or off, and
// its dtype, for CUDA and the CPU), cuDNN itself and its benchmark mode,
// TF32. The guard saves them before a replay and restores them after it,
// also when the replay throws midway, so that no finding is replayed in a
// state another one left behind.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_GLOBALSTATE_H
#define TORCHLINT_RUNTIME_GLOBALSTATE_H

#include "Autocast.h"

namespace torchlint::replay {

class GlobalStateGuard {
public:
  GlobalStateGuard();
  ~GlobalStateGuard();
  GlobalStateGuard(const GlobalStateGuard &) = delete;
  GlobalStateGuard &operator=(const GlobalStateGuard &) = delete;

  bool cudnnTf32() const { return CudnnTf32; }
  bool cublasTf32() const { return CublasTf32; }

private:
  AutocastState CudaAutocast;
  AutocastState CpuAutocast;
  bool CudnnEnabled;
  bool CudnnBenchmark;
  bool CudnnTf32;
  bool CublasTf32;
};

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_GLOBALSTATE_H
