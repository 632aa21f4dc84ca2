//===--- Rule.h - Base class of every torchlint rule ------------*- C++ -*-===//
//
// A rule is a small class in the style of a clang-tidy check: it registers AST
// matchers and turns each match into findings. It never knows which shell (the
// torchlint CLI or the clang-tidy plugin) runs it: it asks the unit's
// AnalysisContext for the shared analyses and reports to the sink that the
// shell installed there.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_RULE_H
#define TORCHLINT_RULES_RULE_H

#include "analysis/AnalysisContext.h"
#include "core/FindingBuilder.h"
#include "core/FixIts.h"
#include "core/RuleInfo.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

namespace torchlint {

class Rule : public clang::ast_matchers::MatchFinder::MatchCallback {
public:
  Rule(const RuleInfo &Info, AnalysisContext &Context)
      : Info(Info), Context(Context) {}

  virtual void registerMatchers(clang::ast_matchers::MatchFinder *Finder) = 0;
  virtual void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) = 0;

  const RuleInfo &info() const { return Info; }

  /// Runs check() on matches in the user's code only, and never on a
  /// template's pattern (its instantiations are checked). The CLI never
  /// traverses anything else; clang-tidy traverses the whole unit.
  void run(const clang::ast_matchers::MatchFinder::MatchResult &Result) final;
  llvm::StringRef getID() const final { return Info.Id; }

protected:
  /// A finding at Range. Not where clang recovered from a compile error,
  /// and without fix-its in a unit with errors: they would be computed on a
  /// guess, and clang-tidy withholds them there too.
  FindingBuilder report(clang::ASTContext &Ctx, clang::SourceRange Range,
                        const llvm::Twine &Message) {
    FindingBuilder Builder(Context.userCode(), Context.sink(), Ctx, Info,
                           Range, Message);
    if (Ctx.getDiagnostics().hasErrorOccurred()) {
      Builder.withholdFixIts();
      if (Context.inCodeWithErrors(Ctx, Range.getBegin()))
        Builder.discard();
    }
    return Builder;
  }
  AnalysisContext &context() { return Context; }
  /// An option of this rule, read where the rule is made: a rule reads its
  /// options once. A bad value gives the default; the shell says so.
  unsigned option(const RuleOptionInfo &Option) const {
    return readOption(Info, Option, Context.options());
  }

private:
  const RuleInfo &Info;
  AnalysisContext &Context;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_RULE_H
