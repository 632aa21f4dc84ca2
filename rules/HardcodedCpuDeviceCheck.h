//===--- HardcodedCpuDeviceCheck.h - torch-hardcoded-cpu-device -*- C++ -*-===//
//
// A module, or the tensors it runs on, placed on a device that is written out
// as the CPU on every path: it never uses a GPU, even where one is available.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_HARDCODEDCPUDEVICECHECK_H
#define TORCHLINT_RULES_HARDCODEDCPUDEVICECHECK_H

#include "analysis/DeviceFlow.h"
#include "rules/Rule.h"

#include "llvm/ADT/DenseSet.h"

namespace torchlint {

class HardcodedCpuDeviceCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit HardcodedCpuDeviceCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Reports the CPU literal behind the placement of Placed (the called
  /// module, or one of its inputs), once per literal. ModuleInputs are the
  /// inputs of the call when Placed is the module.
  void reportPlacement(const FactSet &Placement, const clang::Expr *Call,
                       const clang::Expr *Placed,
                       llvm::ArrayRef<const clang::Expr *> ModuleInputs,
                       clang::ASTContext &Ctx);
  void offerAvailabilityCheck(FindingBuilder &Finding,
                              const clang::Expr *Literal,
                              clang::ASTContext &Ctx);

  llvm::DenseSet<const clang::Expr *> Reported;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_HARDCODEDCPUDEVICECHECK_H
