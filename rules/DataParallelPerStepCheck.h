//===--- DataParallelPerStepCheck.h - torch-data-parallel-per-step -*- C++
//-*-===//
//
// torch::nn::parallel::data_parallel replicates the whole module onto every
// device on each call, then scatters the input and gathers the outputs: in
// a loop, every step pays for copying all parameters across the GPUs, and
// users find two GPUs slower than one. It is how the C++ frontend's data
// parallelism is meant to be used, so the rule is off by default.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_DATAPARALLELPERSTEPCHECK_H
#define TORCHLINT_RULES_DATAPARALLELPERSTEPCHECK_H

#include "rules/Rule.h"

namespace torchlint {

class DataParallelPerStepCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit DataParallelPerStepCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_DATAPARALLELPERSTEPCHECK_H
