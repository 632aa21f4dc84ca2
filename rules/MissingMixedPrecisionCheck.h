//===--- MissingMixedPrecisionCheck.h - fp32 training on a GPU --*- C++ -*-===//
//
// The tensor cores of a recent NVIDIA GPU run matrix products in bfloat16,
// float16 or TF32 many times faster than in plain float32. A CUDA training
// loop over linear, convolution, attention or recurrent layers with neither
// autocast nor TF32 leaves them idle. An opportunity, not a bug: the replay
// measures whether it pays for the workload at hand.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_MISSINGMIXEDPRECISIONCHECK_H
#define TORCHLINT_RULES_MISSINGMIXEDPRECISIONCHECK_H

#include "rules/Rule.h"

#include <vector>

namespace clang {
class Stmt;
} // namespace clang

namespace torchlint {

class MissingMixedPrecisionCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit MissingMixedPrecisionCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  clang::ASTContext *Ctx = nullptr;
  std::vector<const clang::Stmt *> Loops;
  /// The unit already computes in lower precision somewhere: autocast,
  /// TF32 matmuls, or a module converted to float16 or bfloat16.
  bool LowerPrecision = false;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_MISSINGMIXEDPRECISIONCHECK_H
