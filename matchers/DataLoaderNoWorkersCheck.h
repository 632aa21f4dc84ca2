//===--- DataLoaderNoWorkersCheck.h - torch-dataloader-no-workers -*- C++
//-*-===//
//
// A data loader with no worker threads loads and collates every batch on the
// training thread, between steps, while the model waits.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_MATCHERS_DATALOADERNOWORKERSCHECK_H
#define TORCHLINT_MATCHERS_DATALOADERNOWORKERSCHECK_H

#include "Rule.h"

namespace torchlint {

class DataLoaderNoWorkersCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit DataLoaderNoWorkersCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace torchlint

#endif // TORCHLINT_MATCHERS_DATALOADERNOWORKERSCHECK_H
