//===--- DataLoaderNoWorkersCheck.h - torch-dataloader-no-workers -*- C++
//-*-===//
//
// A data loader with no worker threads loads and collates every batch on the
// training thread, between steps, while the model waits.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_DATALOADERNOWORKERSCHECK_H
#define TORCHLINT_RULES_DATALOADERNOWORKERSCHECK_H

#include "rules/Rule.h"

namespace torchlint {

class DataLoaderNoWorkersCheck : public Rule {
public:
  static const RuleInfo Info;
  /// The workers the fix-it sets; 0: 4, or 2 for a dataset in memory.
  static const RuleOptionInfo Workers;
  explicit DataLoaderNoWorkersCheck(AnalysisContext &Context)
      : Rule(Info, Context), SuggestedWorkers(option(Workers)) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  const unsigned SuggestedWorkers;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_DATALOADERNOWORKERSCHECK_H
