//===--- CudaGuards.h - Is CUDA known to be available here ------*- C++ -*-===//
//
// A must-analysis over the same CFGs as the device flow: a statement is
// guarded when every path to it passes a check that CUDA is available
// (torch::cuda::is_available(), device_count() > 0, an early return when it is
// not, TORCH_CHECK of it), in its function or, for a function whose every
// caller is guarded, in the callers.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_MATCHERS_CUDAGUARDS_H
#define TORCHLINT_MATCHERS_CUDAGUARDS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace torchlint {

class DeviceFlow;

class CudaGuards {
public:
  CudaGuards(clang::ASTContext &Ctx, DeviceFlow &Flow);

  clang::ASTContext &astContext() const { return Ctx; }

  /// Every path from the program's entry to S checked that CUDA is available.
  bool isGuarded(const clang::Stmt *S);

private:
  /// Per CFG block: guarded on entry; nullopt for blocks no path reaches.
  using BlockFacts = std::vector<std::optional<bool>>;

  const BlockFacts *analyze(const clang::FunctionDecl *FD);
  bool entryGuarded(const clang::FunctionDecl *FD);

  clang::ASTContext &Ctx;
  DeviceFlow &Flow;
  llvm::DenseMap<const clang::FunctionDecl *, BlockFacts> Results;
  llvm::DenseSet<const clang::FunctionDecl *> InProgress;
};

} // namespace torchlint

#endif // TORCHLINT_MATCHERS_CUDAGUARDS_H
