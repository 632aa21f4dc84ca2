//===--- LaunchBlockingInCodeCheck.h - torch-launch-blocking-in-code -*- C++
//-*-===//
//
// CUDA_LAUNCH_BLOCKING=1 set by the program itself: every kernel launch then
// waits until the GPU has run it, so the CPU can no longer queue work ahead
// of the GPU. It is a debugging switch; set after CUDA has started it does
// nothing at all.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_LAUNCHBLOCKINGINCODECHECK_H
#define TORCHLINT_RULES_LAUNCHBLOCKINGINCODECHECK_H

#include "rules/Rule.h"

namespace torchlint {

class LaunchBlockingInCodeCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit LaunchBlockingInCodeCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_LAUNCHBLOCKINGINCODECHECK_H
