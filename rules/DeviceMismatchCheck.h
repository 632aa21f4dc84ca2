//===--- DeviceMismatchCheck.h - torch-device-mismatch ----------*- C++ -*-===//
//
// A module on one device called with an input on another, or a module's output
// meeting a target on another device (a loss function, arithmetic). The call
// fails at run time with "Expected all tensors to be on the same device".
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_DEVICEMISMATCHCHECK_H
#define TORCHLINT_RULES_DEVICEMISMATCHCHECK_H

#include "analysis/DeviceFlow.h"
#include "rules/Rule.h"

namespace torchlint {

class DeviceMismatchCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit DeviceMismatchCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void checkModuleCall(const clang::Expr *Call, const clang::Expr *Module,
                       llvm::ArrayRef<const clang::Expr *> Inputs,
                       clang::ASTContext &Ctx);
  /// Operands of one operation (a loss, arithmetic) that must share a device.
  void checkOperands(const clang::Expr *Operation, llvm::StringRef What,
                     llvm::ArrayRef<const clang::Expr *> Operands,
                     bool RequireModuleOutput, clang::ASTContext &Ctx);
  void offerMove(FindingBuilder &Finding, const clang::Expr *Input,
                 const FactSet &Target, DeviceFlow &Flow);
};

} // namespace torchlint

#endif // TORCHLINT_RULES_DEVICEMISMATCHCHECK_H
