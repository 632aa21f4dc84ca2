//===--- DiscardedResultCheck.h - torch-discarded-result --------*- C++ -*-===//
//
// A tensor operation that returns a new tensor, written as a statement of its
// own: `x.to(device);`, `x.div(255);`, `torch::clamp(w, -1, 1);`. Unlike a
// module's to(), a tensor's leaves its operand as it was, so the tensor stays
// on the CPU and the clamp clamps nothing; so does an in-place operation on
// the copy such an operation returns (`x.to(device).div_(255);`).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_DISCARDEDRESULTCHECK_H
#define TORCHLINT_RULES_DISCARDEDRESULTCHECK_H

#include "rules/Rule.h"

namespace torchlint {

class DiscardedResultCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit DiscardedResultCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_DISCARDEDRESULTCHECK_H
