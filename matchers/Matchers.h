//===--- Matchers.h - AST matchers for shapes of the libtorch API -*- C++
//-*-===//
//
// The matchers that several rules and analyses register for the same API
// shapes, as clang-tidy keeps its shared ones in utils/Matchers.h. A matcher
// here finds candidates by name; the vocabulary (TorchApi.h) then decides
// what a candidate is.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_MATCHERS_MATCHERS_H
#define TORCHLINT_MATCHERS_MATCHERS_H

#include "matchers/TorchApi.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace torchlint::matchers {

/// Registers the calls that may run a module, `model(x)`,
/// `model->forward(x)` and a TorchScript module's
/// `run_method("forward", x)`, each bound as "module-call"; a rule confirms
/// one with api::calledModule.
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

/// at::Tensor or at::TensorBase, where most tensor methods are declared.
inline clang::ast_matchers::internal::Matcher<clang::NamedDecl> tensorClass() {
  using namespace clang::ast_matchers;
  return hasAnyName("::at::Tensor", "::at::TensorBase");
}

/// A call of one of the tensor methods Names: `t.to(...)`, `t.cuda()`.
inline clang::ast_matchers::internal::BindableMatcher<clang::Stmt>
tensorMethodCall(llvm::ArrayRef<llvm::StringRef> Names) {
  using namespace clang::ast_matchers;
  return cxxMemberCallExpr(
      callee(cxxMethodDecl(hasAnyName(Names), ofClass(tensorClass()))));
}

/// The calls that may copy a tensor to another device: `to`, `cuda` and
/// `copy_`; analysis/HostCopies decides whether one does.
inline clang::ast_matchers::internal::BindableMatcher<clang::Stmt>
tensorCopyCall() {
  return tensorMethodCall({"to", "cuda", "copy_"});
}

/// torch::jit::load, whichever overload, that gives a module.
AST_MATCHER(clang::FunctionDecl, isScriptModuleLoadDecl) {
  return api::isScriptModuleLoad(&Node);
}

} // namespace torchlint::matchers

#endif // TORCHLINT_MATCHERS_MATCHERS_H
