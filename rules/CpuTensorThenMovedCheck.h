//===--- CpuTensorThenMovedCheck.h - torch-cpu-tensor-then-moved -*- C++
//-*-===//
//
// A tensor made on the CPU by a factory (torch::zeros, torch::randn, ...)
// only to be copied to the GPU: the host fills it and the bus carries it,
// where creating it on the device costs neither.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_CPUTENSORTHENMOVEDCHECK_H
#define TORCHLINT_RULES_CPUTENSORTHENMOVEDCHECK_H

#include "analysis/HostCopies.h"
#include "rules/Rule.h"

namespace torchlint {

class CpuTensorThenMovedCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit CpuTensorThenMovedCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Creates the tensor on the device and drops the move.
  void offerFix(FindingBuilder &Finding, const DeviceCopy &Copy,
                const CreatedThenMoved &Made, DeviceFlow &Flow);
};

} // namespace torchlint

#endif // TORCHLINT_RULES_CPUTENSORTHENMOVEDCHECK_H
