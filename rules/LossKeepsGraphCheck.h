//===--- LossKeepsGraphCheck.h - torch-loss-keeps-graph ----------*- C++
//-*-===//
//
// A tensor declared before a training loop that collects the loss on every
// iteration (`total += loss`, `total = total + loss`, `total.add_(loss)`,
// `losses.push_back(loss)`) with its autograd graph: each iteration's graph
// stays alive as long as the accumulator, so memory grows with the epoch.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_LOSSKEEPSGRAPHCHECK_H
#define TORCHLINT_RULES_LOSSKEEPSGRAPHCHECK_H

#include "rules/Rule.h"

namespace torchlint {

class LossKeepsGraphCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit LossKeepsGraphCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_LOSSKEEPSGRAPHCHECK_H
