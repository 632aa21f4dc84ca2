//===--- SyncInLoopCheck.h - torch-sync-in-loop --------------------*- C++
//-*-===//
//
// A device-to-host synchronisation on every step of a training or evaluation
// loop: .item(), .cpu(), .to(kCPU), printing a tensor, cuda::synchronize().
// The host waits for all queued GPU work, so the GPU idles until the host
// launches the next step.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_SYNCINLOOPCHECK_H
#define TORCHLINT_RULES_SYNCINLOOPCHECK_H

#include "rules/Rule.h"

#include "llvm/ADT/DenseSet.h"

namespace torchlint {

class SyncInLoopCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit SyncInLoopCheck(AnalysisContext &Context) : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  llvm::DenseSet<const clang::Stmt *> Reported;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_SYNCINLOOPCHECK_H
