//===--- BackwardUnderAutocastCheck.h - backward() in a region --*- C++ -*-===//
//
// Autocast is meant to cover the forward pass and the loss. The backward
// pass runs each gradient in the dtype autocast chose for its forward op
// anyway; run inside the region, it goes through autocast's dispatch again
// and casts what it need not.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_BACKWARDUNDERAUTOCASTCHECK_H
#define TORCHLINT_RULES_BACKWARDUNDERAUTOCASTCHECK_H

#include "rules/Rule.h"

namespace torchlint {

class BackwardUnderAutocastCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit BackwardUnderAutocastCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_BACKWARDUNDERAUTOCASTCHECK_H
