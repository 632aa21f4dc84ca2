//===--- CudaUse.h - Where a unit asks for CUDA -----------------*- C++ -*-===//
//
// "This program means to use the GPU" is what turns a module left on the CPU
// from a choice into a mistake. A unit shows it by checking for CUDA
// (torch::cuda::is_available(), device_count()), by naming a CUDA device
// (torch::kCUDA, "cuda", "cuda:1") or by calling .cuda(); the program does
// when one of its units does (StepContext::programUsesCuda joins them).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_CUDAUSE_H
#define TORCHLINT_ANALYSIS_CUDAUSE_H

namespace clang {
class ASTContext;
class Stmt;
} // namespace clang

namespace torchlint {

class UserCode;

/// The first place, in the order of the unit's declarations, where the
/// user's code of this unit asks for CUDA; null when it never does.
const clang::Stmt *firstCudaUse(clang::ASTContext &Ctx, const UserCode &Code);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_CUDAUSE_H
