#include "GlobalState.h"

#include <ATen/Context.h>

namespace torchlint::replay {

GlobalStateGuard::GlobalStateGuard()
    : CudaAutocast(autocastState(c10::DeviceType::CUDA)),
      CpuAutocast(autocastState(c10::DeviceType::CPU)),
      CudnnEnabled(at::globalContext().userEnabledCuDNN()),
      CudnnBenchmark(at::globalContext().benchmarkCuDNN()),
      CudnnTf32(at::globalContext().allowTF32CuDNN()),
      CublasTf32(at::globalContext().allowTF32CuBLAS()) {}

GlobalStateGuard::~GlobalStateGuard() {
  restoreAutocast(c10::DeviceType::CUDA, CudaAutocast);
  restoreAutocast(c10::DeviceType::CPU, CpuAutocast);
  clearAutocastCache();
  at::globalContext().setUserEnabledCuDNN(CudnnEnabled);
  at::globalContext().setBenchmarkCuDNN(CudnnBenchmark);
  at::globalContext().setAllowTF32CuDNN(CudnnTf32);
  at::globalContext().setAllowTF32CuBLAS(CublasTf32);
}

} // namespace torchlint::replay
