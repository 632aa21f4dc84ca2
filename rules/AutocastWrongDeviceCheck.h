//===--- AutocastWrongDeviceCheck.h - Autocast for wrong device -*- C++ -*-===//
//
// Autocast is per device: CUDA autocast casts only the ops that run on a
// CUDA device, CPU autocast only those on the CPU. A region turned on for
// the device the model is not on casts nothing, and the model quietly runs
// in fp32.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_AUTOCASTWRONGDEVICECHECK_H
#define TORCHLINT_RULES_AUTOCASTWRONGDEVICECHECK_H

#include "rules/Rule.h"

#include "llvm/ADT/DenseSet.h"

namespace clang {
class CallExpr;
} // namespace clang

namespace torchlint {

class AutocastWrongDeviceCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit AutocastWrongDeviceCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override { Reported.clear(); }

private:
  /// The switch-ons already reported: one finding per region.
  llvm::DenseSet<const clang::CallExpr *> Reported;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_AUTOCASTWRONGDEVICECHECK_H
