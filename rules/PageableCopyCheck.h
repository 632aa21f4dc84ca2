//===--- PageableCopyCheck.h - torch-pageable-copy -----------------*- C++
//-*-===//
//
// A tensor copied to the GPU on every step from pageable host memory: the
// driver stages it through a pinned buffer and the host waits for the copy,
// so it cannot overlap with compute (non_blocking=true included).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_PAGEABLECOPYCHECK_H
#define TORCHLINT_RULES_PAGEABLECOPYCHECK_H

#include "analysis/HostCopies.h"
#include "analysis/Loops.h"
#include "rules/Rule.h"

namespace torchlint {

class PageableCopyCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit PageableCopyCheck(AnalysisContext &Context) : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Allocates the source pinned at its factory and makes the copy
  /// asynchronous.
  void offerFix(FindingBuilder &Finding, const DeviceCopy &Copy,
                bool Asynchronous, const clang::CallExpr *Factory,
                clang::ASTContext &Ctx);
};

} // namespace torchlint

#endif // TORCHLINT_RULES_PAGEABLECOPYCHECK_H
