//===--- CudnnBenchmarkOffCheck.h - cuDNN autotuner off ---------*- C++ -*-===//
//
// A program runs convolutions on the GPU with cuDNN's autotuner off: for
// fixed input sizes, benchmark mode times cuDNN's algorithms once per shape
// and keeps the fastest. The setting is global, so the program is reported
// once per place that chooses the device, where the fix goes.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_CUDNNBENCHMARKOFFCHECK_H
#define TORCHLINT_RULES_CUDNNBENCHMARKOFFCHECK_H

#include "rules/Rule.h"

#include "llvm/ADT/DenseSet.h"

#include <vector>

namespace clang {
class CXXMemberCallExpr;
class Expr;
} // namespace clang

namespace torchlint {

class CudnnBenchmarkOffCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit CudnnBenchmarkOffCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  /// Moved: a module's to(device), or torch::jit::load(path, device).
  void reportAt(const clang::CallExpr *Moved);

  clang::ASTContext *Ctx = nullptr;
  /// Moves of modules with convolutions to a GPU, the first for each device
  /// choice (a device variable, or the function that names the device).
  std::vector<const clang::CallExpr *> Moves;
  llvm::DenseSet<const void *> Choices;
  /// The first call of a module with convolutions: its input, for the recipe.
  const clang::Expr *FirstInput = nullptr;
  /// A tensor's sizes visibly change from one iteration to the next.
  const clang::Expr *VaryingSizes = nullptr;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_CUDNNBENCHMARKOFFCHECK_H
