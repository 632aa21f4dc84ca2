//===--- EveryRankOnOneGpuCheck.h - torch-every-rank-on-one-gpu -*- C++ -*-===//
//
// A multi-process program (a c10d process group, MPI, or a rank read from
// the environment) that spells its CUDA device without the rank: `kCUDA`,
// "cuda", "cuda:0". Every process then runs on the same GPU: one GPU does
// the work of all ranks, or runs out of memory, while the others idle.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_EVERYRANKONONEGPUCHECK_H
#define TORCHLINT_RULES_EVERYRANKONONEGPUCHECK_H

#include "rules/Rule.h"

#include <vector>

namespace clang {
class Expr;
class Stmt;
} // namespace clang

namespace torchlint {

class EveryRankOnOneGpuCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit EveryRankOnOneGpuCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  struct Choice {
    const clang::Expr *Where;
    /// The GPU it names; -1 for the current device (`kCUDA`, `cuda()`).
    int Index;
  };
  clang::ASTContext *Ctx = nullptr;
  /// Where the program shows it runs as several processes.
  const clang::Stmt *Rank = nullptr;
  std::string RankWhat;
  /// The current device is set at run time (set_device, a device guard),
  /// which `kCUDA` without an index follows.
  bool CurrentDeviceSet = false;
  /// CUDA_VISIBLE_DEVICES is set from a run-time value: each process sees
  /// its own GPUs, whatever the index.
  bool VisibleDevicesChosen = false;
  std::vector<Choice> Choices;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_EVERYRANKONONEGPUCHECK_H
