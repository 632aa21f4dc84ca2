//===--- AutocastStaleCacheCheck.h - Autocast off, cache kept ---*- C++ -*-===//
//
// CUDA autocast caches the low-precision copy of each weight it casts, for
// as long as the region lasts. Python's autocast clears that cache when the
// region ends; in C++ that is at::autocast::clear_cache(), the program's
// job. Without it the copies outlive the region, and after an optimizer
// updates the weights in place the next region computes with the old ones.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_AUTOCASTSTALECACHECHECK_H
#define TORCHLINT_RULES_AUTOCASTSTALECACHECHECK_H

#include "analysis/AutocastFlow.h"
#include "matchers/AutocastApi.h"
#include "rules/Rule.h"

#include <vector>

namespace clang {
class Expr;
class FunctionDecl;
} // namespace clang

namespace torchlint {

class AutocastStaleCacheCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit AutocastStaleCacheCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  struct Located {
    autocast::AutocastCall Read;
    const clang::FunctionDecl *Function;
  };
  /// Before: the cast cache right before the switch-off.
  bool clearedAround(const Located &Off,
                     const std::optional<CastCacheSetting> &Before);
  void reportAt(const Located &Off, const clang::CallExpr *On);

  clang::ASTContext *Ctx = nullptr;
  /// The unit's autocast calls and module calls, in source order.
  std::vector<Located> Calls;
  std::vector<std::pair<const clang::Expr *, const clang::FunctionDecl *>>
      ModuleCalls;
  /// Backward passes and optimizer steps, for the recipe.
  std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>>
      TrainingCalls;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_AUTOCASTSTALECACHECHECK_H
