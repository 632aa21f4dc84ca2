//===--- CudaVisibleDevicesInCodeCheck.h - torch-cuda-visible-devices-in-code
//-//
//
// CUDA_VISIBLE_DEVICES set from inside the program: CUDA reads it once, when
// it initialises, so a change after the first CUDA call is silently ignored;
// and an empty value hides every GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_CUDAVISIBLEDEVICESINCODECHECK_H
#define TORCHLINT_RULES_CUDAVISIBLEDEVICESINCODECHECK_H

#include "rules/Rule.h"

namespace torchlint {

class CudaVisibleDevicesInCodeCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit CudaVisibleDevicesInCodeCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_CUDAVISIBLEDEVICESINCODECHECK_H
