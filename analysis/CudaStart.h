//===--- CudaStart.h - Where the program starts CUDA ------------*- C++ -*-===//
//
// CUDA reads its environment (CUDA_VISIBLE_DEVICES, CUDA_LAUNCH_BLOCKING)
// once, when its runtime starts: a setting made after that has no effect.
// Anything that starts it counts: a torch::cuda:: query or setting, a tensor
// or module moved to a GPU, a factory given a GPU device.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_CUDASTART_H
#define TORCHLINT_ANALYSIS_CUDASTART_H

namespace clang {
class Expr;
class Stmt;
} // namespace clang

namespace torchlint {

class DeviceFlow;
class UserCode;

/// An expression that starts the CUDA runtime and runs before Site: earlier
/// in Site's function (also inside the program's functions it calls there),
/// or before the calls of that function, a few callers up. Null when none is
/// known.
const clang::Expr *cudaStartedBefore(const clang::Stmt *Site, DeviceFlow &Flow,
                                     const UserCode &Code);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_CUDASTART_H
