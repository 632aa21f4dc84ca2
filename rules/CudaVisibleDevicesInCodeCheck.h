//===--- CudaVisibleDevicesInCodeCheck.h - torch-cuda-visible-devices-in-code
//-//
//
// CUDA_VISIBLE_DEVICES set from inside the program: CUDA reads it once, when
// it initialises, so a change after the first CUDA call is silently ignored;
// and an empty value hides every GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_CUDAVISIBLEDEVICESINCODECHECK_H
#define TORCHLINT_RULES_CUDAVISIBLEDEVICESINCODECHECK_H

#include "rules/Rule.h"

namespace clang {
class FunctionDecl;
} // namespace clang

namespace torchlint {

class DeviceFlow;

class CudaVisibleDevicesInCodeCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit CudaVisibleDevicesInCodeCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// An expression that initialises CUDA and runs before Site: earlier in
  /// Site's function (also inside the functions it calls there), or before
  /// the calls of that function. Null when none is known.
  const clang::Expr *cudaInitialisedBefore(const clang::Stmt *Site,
                                           DeviceFlow &Flow, unsigned Depth);
  /// The first expression in S (and the functions it calls) that initialises
  /// CUDA, among those that end before Limit when Limit is valid.
  const clang::Expr *cudaInitialisationIn(const clang::Stmt *S,
                                          clang::SourceLocation Limit,
                                          DeviceFlow &Flow, unsigned Depth);
  bool initialisesCuda(const clang::Expr *E, DeviceFlow &Flow);
};

} // namespace torchlint

#endif // TORCHLINT_RULES_CUDAVISIBLEDEVICESINCODECHECK_H
