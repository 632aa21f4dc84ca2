//===--- EvalWithoutNoGradCheck.h - eval without no-grad --------*- C++ -*-===//
//
// A module run for evaluation or inference while autograd records: every
// operation is recorded and every intermediate activation kept for a backward
// pass that never comes.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_EVALWITHOUTNOGRADCHECK_H
#define TORCHLINT_RULES_EVALWITHOUTNOGRADCHECK_H

#include "rules/Rule.h"

#include "llvm/ADT/DenseSet.h"

namespace clang {
class CompoundStmt;
class FunctionDecl;
} // namespace clang

namespace torchlint {

class EvalWithoutNoGradCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit EvalWithoutNoGradCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// The outermost block around Call, in its function, whose code needs no
  /// gradients and switches no module to training: where a guard can go.
  const clang::CompoundStmt *guardBlock(const clang::Expr *Call,
                                        const clang::FunctionDecl *FD,
                                        clang::ASTContext &Ctx);

  /// One finding per block that the guard would go into.
  llvm::DenseSet<const void *> Reported;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_EVALWITHOUTNOGRADCHECK_H
