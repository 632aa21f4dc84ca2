//===--- CudnnDisabledCheck.h - torch-cudnn-disabled ------------*- C++ -*-===//
//
// cuDNN switched off (`setUserEnabledCuDNN(false)`) in a program that then
// runs convolutions, recurrent layers or batch normalization on the GPU:
// they fall back to libtorch's native kernels, several times slower. It is
// a switch for debugging or working around a bug; code that only debug
// builds compile, or that switches by a run-time choice, is not reported.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_CUDNNDISABLEDCHECK_H
#define TORCHLINT_RULES_CUDNNDISABLEDCHECK_H

#include "rules/Rule.h"

namespace torchlint {

class CudnnDisabledCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit CudnnDisabledCheck(AnalysisContext &Context) : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  struct Work {
    /// The element of the searched function that runs it.
    const clang::Expr *Site = nullptr;
    /// The layer class or the function cuDNN would run.
    const clang::NamedDecl *Kernel = nullptr;
  };
  /// Work that cuDNN would run, reached from From in its function before
  /// cuDNN is switched on again: a module call whose layers use cuDNN, a
  /// functional convolution, recurrence or batch norm, directly or inside
  /// the program's functions called there. Empty when there is none.
  Work cudnnWorkAfter(const clang::Stmt *From, clang::ASTContext &Ctx);
  /// E is such work itself: the layer or function it runs, else null.
  const clang::NamedDecl *kernelOf(const clang::Expr *E,
                                   clang::ASTContext &Ctx);
};

} // namespace torchlint

#endif // TORCHLINT_RULES_CUDNNDISABLEDCHECK_H
