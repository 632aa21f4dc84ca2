//===--- AnomalyDetectionEnabledCheck.h - torch-anomaly-detection-enabled -===//
//
// Autograd's anomaly detection left on while the model trains: every
// backward pass then records a traceback per operation and checks for NaN,
// which users measured at 2.4 to 2.5 times slower epochs. It is a debugging
// switch; code that only debug builds compile, or that turns it on by a
// run-time choice, is not reported.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_ANOMALYDETECTIONENABLEDCHECK_H
#define TORCHLINT_RULES_ANOMALYDETECTIONENABLEDCHECK_H

#include "rules/Rule.h"

namespace clang {
class CallExpr;
class CompoundStmt;
class FunctionDecl;
} // namespace clang

namespace torchlint {

class AnomalyDetectionEnabledCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit AnomalyDetectionEnabledCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// The backward() of a training loop that runs after From in its function
  /// while the mode is on: until `set_enabled(false)`, and, for a guard,
  /// inside Scope.
  const clang::CallExpr *trainingAfter(const clang::Stmt *From,
                                       const clang::CompoundStmt *Scope,
                                       clang::ASTContext &Ctx);
};

} // namespace torchlint

#endif // TORCHLINT_RULES_ANOMALYDETECTIONENABLEDCHECK_H
