//===--- Fp16WithoutLossScalingCheck.h - fp16 gradients flushed -*- C++ -*-===//
//
// CUDA autocast computes in float16 unless told otherwise. float16's
// smallest subnormal is 2^-24: smaller gradients round to zero and their
// parameters stop learning. Python's GradScaler scales the loss up before
// backward and skips steps whose gradients are not finite; libtorch has no
// such class, so a C++ training loop does it by hand or computes in
// bfloat16, whose range is that of float32.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_FP16WITHOUTLOSSSCALINGCHECK_H
#define TORCHLINT_RULES_FP16WITHOUTLOSSSCALINGCHECK_H

#include "matchers/AutocastApi.h"
#include "rules/Rule.h"

#include <vector>

namespace clang {
class CallExpr;
class Expr;
class FunctionDecl;
} // namespace clang

namespace torchlint {

class Fp16WithoutLossScalingCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit Fp16WithoutLossScalingCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  template <typename Node> struct InFunction {
    const Node *What;
    const clang::FunctionDecl *Function;
  };
  struct DtypeChoice {
    autocast::AutocastCall Read;
    const clang::FunctionDecl *Function;
  };
  /// The choice of dtype that decides the region On opens, if any; Fp16 is
  /// set when the region computes in float16.
  const DtypeChoice *choiceFor(const clang::CallExpr *On,
                               const clang::FunctionDecl *Function, bool &Fp16);
  /// The module call the region runs, for the recipe and its device.
  const clang::Expr *regionModule(const clang::CallExpr *On,
                                  const clang::FunctionDecl *Region,
                                  const clang::FunctionDecl *Trainer);
  bool trainsIn(const clang::FunctionDecl *Function) const;
  bool scalesLossIn(const clang::FunctionDecl *Function) const;
  /// Region: the function that turns autocast on; Trainer: the one that runs
  /// backward().
  void reportAt(const autocast::AutocastCall &On,
                const clang::FunctionDecl *Region,
                const clang::FunctionDecl *Trainer, const DtypeChoice *Choice,
                bool FixChoice);

  clang::ASTContext *Ctx = nullptr;
  std::vector<InFunction<clang::CallExpr>> Enables;
  std::vector<DtypeChoice> DtypeChoices;
  std::vector<InFunction<clang::CallExpr>> Backwards;
  std::vector<InFunction<clang::CallExpr>> OptimizerSteps;
  std::vector<InFunction<clang::Expr>> ModuleCalls;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_FP16WITHOUTLOSSSCALINGCHECK_H
