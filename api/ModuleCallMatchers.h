//===--- ModuleCallMatchers.h - Calls that may run a module -----*- C++ -*-===//
//
// Several rules follow where modules run: `model(x)`, `model->forward(x)`,
// and a TorchScript module's `run_method("forward", x)`.
// They register the same two matchers, binding each candidate call as
// "module-call"; a rule confirms it with api::calledModule.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_API_MODULECALLMATCHERS_H
#define TORCHLINT_API_MODULECALLMATCHERS_H

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

namespace torchlint {

inline void
matchModuleCalls(clang::ast_matchers::MatchFinder *Finder,
                 clang::ast_matchers::MatchFinder::MatchCallback *Rule) {
  using namespace clang::ast_matchers;
  Finder->addMatcher(
      cxxOperatorCallExpr(hasOverloadedOperatorName("()")).bind("module-call"),
      Rule);
  Finder->addMatcher(cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName(
                                           "forward", "run_method"))))
                         .bind("module-call"),
                     Rule);
}

} // namespace torchlint

#endif // TORCHLINT_API_MODULECALLMATCHERS_H
