//===--- AutocastLeakCheck.h - Autocast left on by some path ----*- C++ -*-===//
//
// libtorch's C++ autocast has no guard object: a region is turned off by a
// call the program must reach. A return, throw, break or continue between
// the switch-on and the switch-off, or an exception caught in the same
// function, skips it, and everything that runs afterwards (evaluation,
// another model, the next test) runs under autocast.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_AUTOCASTLEAKCHECK_H
#define TORCHLINT_RULES_AUTOCASTLEAKCHECK_H

#include "matchers/AutocastApi.h"
#include "rules/Rule.h"

#include "llvm/ADT/DenseSet.h"

#include <vector>

namespace clang {
class CXXCatchStmt;
class FunctionDecl;
} // namespace clang

namespace torchlint {

class AutocastLeakCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit AutocastLeakCheck(AnalysisContext &Context) : Rule(Info, Context) {}

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  struct Located {
    autocast::AutocastCall Read;
    const clang::FunctionDecl *Function;
  };
  /// The statements by which control leaves Function with autocast still
  /// on after On; Exits is set when some path out reaches the function's
  /// end that way.
  std::vector<const clang::Stmt *> leavingStatements(const Located &On,
                                                     bool &Exits);
  /// A handler of a try block around On that catches an exception thrown
  /// after it (by the forward pass) and goes on without a switch-off.
  const clang::CXXCatchStmt *swallowingHandler(const Located &On);
  bool isSwitchOff(const clang::Stmt *S, const Located &On) const;

  clang::ASTContext *Ctx = nullptr;
  std::vector<Located> Calls;
  std::vector<std::pair<const clang::Expr *, const clang::FunctionDecl *>>
      ModuleCalls;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_AUTOCASTLEAKCHECK_H
