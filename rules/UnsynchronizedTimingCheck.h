//===--- UnsynchronizedTimingCheck.h - torch-unsynchronized-timing -*- C++ -*-//
//
// A host clock read around GPU work with no wait for the GPU before the end
// of the interval: the work is only queued when the clock is read again, so
// the program reports the time it took to launch the work, not to do it (the
// root of many "libtorch is slower than Python" comparisons, and of
// benchmarks that look too good).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_UNSYNCHRONIZEDTIMINGCHECK_H
#define TORCHLINT_RULES_UNSYNCHRONIZEDTIMINGCHECK_H

#include "rules/Rule.h"

#include "llvm/ADT/DenseSet.h"

namespace torchlint {

class UnsynchronizedTimingCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit UnsynchronizedTimingCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Functions whose intervals were looked at: every clock read of a
  /// function leads to the same answer.
  llvm::DenseSet<const clang::FunctionDecl *> Done;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_UNSYNCHRONIZEDTIMINGCHECK_H
