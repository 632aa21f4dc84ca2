//===--- ModuleNeverMovedCheck.h - torch-module-never-moved -----*- C++ -*-===//
//
// A module run on every step of a program that uses CUDA, where no path
// moves it, or loads it, onto a device: its parameters stay where its
// constructor made them, on the CPU, and so does all of its work. The most
// common reason a GPU sits idle.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_MODULENEVERMOVEDCHECK_H
#define TORCHLINT_RULES_MODULENEVERMOVEDCHECK_H

#include "rules/Rule.h"

#include "llvm/ADT/DenseSet.h"

namespace torchlint {

class ModuleNeverMovedCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit ModuleNeverMovedCheck(AnalysisContext &Context)
      : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override { Reported.clear(); }

private:
  /// The modules reported, by where they were created: once each.
  llvm::DenseSet<const void *> Reported;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_MODULENEVERMOVEDCHECK_H
