//===--- UncheckedCudaCheck.h - torch-unchecked-cuda ------------*- C++ -*-===//
//
// torch::kCUDA, torch::Device("cuda") or .cuda() reached without checking
// torch::cuda::is_available() first: on a machine without a usable GPU, or
// with a CPU-only libtorch, the program aborts there. Naming CUDA costs
// nothing; using it to move or allocate does, so the rule follows each CUDA
// device to where it is used, on a machine without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_UNCHECKEDCUDACHECK_H
#define TORCHLINT_RULES_UNCHECKEDCUDACHECK_H

#include "rules/Rule.h"

#include "llvm/ADT/DenseSet.h"

namespace torchlint {

class UncheckedCudaCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit UncheckedCudaCheck(AnalysisContext &Context) : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// One finding per literal, however many uses it reaches.
  llvm::DenseSet<const clang::Expr *> Reported;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_UNCHECKEDCUDACHECK_H
