//===--- DataParallelNotCloneableCheck.h - torch-data-parallel-not-cloneable
//-*- C++ -*-===//
//
// torch::nn::parallel::data_parallel clones the module for each device when
// it runs on more than one (replicate always does), and clone() throws for
// a module that cannot be cloned: a plain torch::nn::Module subclass, a
// Cloneable whose reset() does not register what its constructor does, or
// one with such a submodule. The program then fails on its first multi-GPU
// step.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_DATAPARALLELNOTCLONEABLECHECK_H
#define TORCHLINT_RULES_DATAPARALLELNOTCLONEABLECHECK_H

#include "rules/Rule.h"

namespace torchlint {

class DataParallelNotCloneableCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit DataParallelNotCloneableCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_DATAPARALLELNOTCLONEABLECHECK_H
