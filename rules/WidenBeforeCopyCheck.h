//===--- WidenBeforeCopyCheck.h - torch-widen-before-copy -------*- C++ -*-===//
//
// Data widened on the host before its copy to the GPU, on every step: bytes
// made floats cross the bus two to eight times as large as they arrived,
// where the device could have converted them after a narrow copy.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_WIDENBEFORECOPYCHECK_H
#define TORCHLINT_RULES_WIDENBEFORECOPYCHECK_H

#include "analysis/HostWidening.h"
#include "rules/Rule.h"

namespace torchlint {

class WidenBeforeCopyCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit WidenBeforeCopyCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Moves the copy ahead of the conversion, when both are one expression.
  void offerFix(FindingBuilder &Finding, const DeviceCopy &Copy,
                const HostWidening &Widening, clang::ASTContext &Ctx);
};

} // namespace torchlint

#endif // TORCHLINT_RULES_WIDENBEFORECOPYCHECK_H
