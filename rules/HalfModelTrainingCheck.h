//===--- HalfModelTrainingCheck.h - Training float16 weights ----*- C++ -*-===//
//
// A module converted to float16 keeps its weights in float16. float16 has
// 11 significant bits: an optimizer's update smaller than half the spacing
// of float16 numbers around a weight rounds away, so most small updates are
// lost. Mixed precision keeps float32 master weights and computes in lower
// precision under autocast.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_HALFMODELTRAININGCHECK_H
#define TORCHLINT_RULES_HALFMODELTRAININGCHECK_H

#include "rules/Rule.h"

#include <vector>

namespace clang {
class CXXConstructExpr;
class CXXMemberCallExpr;
class ValueDecl;
} // namespace clang

namespace torchlint {

class HalfModelTrainingCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit HalfModelTrainingCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  struct Conversion {
    const clang::CXXMemberCallExpr *To;
    const clang::ValueDecl *Module;
  };
  struct Optimizer {
    const clang::CXXConstructExpr *Construction;
    const clang::ValueDecl *Variable;
    /// The modules whose parameters it is given.
    std::vector<const clang::ValueDecl *> Modules;
  };
  struct Step {
    const clang::CXXMemberCallExpr *Call;
    const clang::ValueDecl *Optimizer;
  };

  clang::ASTContext *Ctx = nullptr;
  std::vector<Conversion> Conversions;
  std::vector<Optimizer> Optimizers;
  std::vector<Step> Steps;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_HALFMODELTRAININGCHECK_H
