//===--- SetupInLoopCheck.h - torch-setup-in-loop ---------------*- C++ -*-===//
//
// What a program sets up once, done on every iteration of the loop that runs
// its model: torch::jit::load, a module's construction, an optimizer's. Each
// frame or step pays for reading the file, or for new parameters, and a new
// optimizer forgets its momentum.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_SETUPINLOOPCHECK_H
#define TORCHLINT_RULES_SETUPINLOOPCHECK_H

#include "rules/Rule.h"

#include "llvm/ADT/DenseSet.h"

namespace torchlint {

class SetupInLoopCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit SetupInLoopCheck(AnalysisContext &Context) : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  llvm::DenseSet<const clang::Stmt *> Reported;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_SETUPINLOOPCHECK_H
