//===--- MatchersTest.cpp - The shared AST matchers on small programs -----===//
//
// Each matcher of matchers/Matchers.h against a stand-in for the libtorch
// names it keys on: what it must find and what it must leave alone. The
// end-to-end specification (test-inputs/) runs them against real headers.
//
//===----------------------------------------------------------------------===//

#include "matchers/Matchers.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace torchlint {
namespace {

using namespace clang::ast_matchers;

// Only the names the matchers and the vocabulary read: classes and methods
// of libtorch's namespaces, and a class of the program with the same method
// names.
constexpr const char *StandIn = R"cpp(
namespace at {
struct TensorBase { TensorBase cuda() const; };
struct Tensor : TensorBase {
  Tensor to(int) const;
  Tensor cuda() const;
  Tensor cpu() const;
  Tensor &copy_(const Tensor &);
};
} // namespace at
namespace torch {
namespace nn { struct Module {}; }
namespace jit {
struct Module { int forward(int); int run_method(const char *, int); };
Module load(const char *);
int load(int);
} // namespace jit
} // namespace torch
struct Batch {
  Batch to(int) const;
  Batch cuda() const;
  Batch &copy_(const Batch &);
  int operator()(int);
};
)cpp";

std::unique_ptr<clang::ASTUnit> parse(const std::string &Body) {
  return clang::tooling::buildASTFromCodeWithArgs(std::string(StandIn) + Body,
                                                  {"-std=c++17"}, "input.cpp");
}

/// How many statements of the program M matches.
unsigned statements(const std::string &Body, StatementMatcher M) {
  std::unique_ptr<clang::ASTUnit> AST = parse(Body);
  EXPECT_TRUE(AST);
  if (!AST)
    return 0;
  return match(translationUnitDecl(forEachDescendant(stmt(M).bind("s"))),
               AST->getASTContext())
      .size();
}

/// How many calls matchModuleCalls binds as "module-call".
unsigned moduleCalls(const std::string &Body) {
  struct Count : MatchFinder::MatchCallback {
    unsigned Calls = 0;
    void run(const MatchFinder::MatchResult &R) override {
      Calls += R.Nodes.getNodeAs<clang::Expr>("module-call") != nullptr;
    }
  } Counter;
  MatchFinder Finder;
  matchers::matchModuleCalls(&Finder, &Counter);
  std::unique_ptr<clang::ASTUnit> AST = parse(Body);
  EXPECT_TRUE(AST);
  if (!AST)
    return 0;
  Finder.matchAST(AST->getASTContext());
  return Counter.Calls;
}

TEST(Matchers, TensorMethodCallKeysOnTheTensorClasses) {
  const char *Code = R"cpp(
    void f(at::Tensor t, at::TensorBase b, Batch batch) {
      t.to(1);      // a tensor method
      t.cuda();     // declared on Tensor
      b.cuda();     // declared on TensorBase
      t.cpu();      // not asked for
      batch.to(1);  // the program's own class: not a tensor
      batch.cuda();
    }
  )cpp";
  EXPECT_EQ(statements(Code, matchers::tensorMethodCall({"to", "cuda"})), 3u);
  EXPECT_EQ(statements(Code, matchers::tensorMethodCall({"to"})), 1u);
  EXPECT_EQ(statements(Code, matchers::tensorMethodCall({"cpu"})), 1u);
  EXPECT_EQ(statements(Code, matchers::tensorMethodCall({"copy_"})), 0u);
}

TEST(Matchers, TensorCopyCallIsToCudaAndCopyInto) {
  const char *Code = R"cpp(
    void f(at::Tensor t, at::Tensor u, Batch a, Batch b) {
      t.to(1);
      t.cuda();
      u.copy_(t);
      t.cpu();     // a copy to the host is not one to a device
      a.copy_(b);  // not a tensor
    }
  )cpp";
  EXPECT_EQ(statements(Code, matchers::tensorCopyCall()), 3u);
}

TEST(Matchers, TensorClassNamesTensorAndTensorBaseOnly) {
  const char *Code = R"cpp(
    at::Tensor make();
    at::TensorBase base();
    Batch other();
    void f() { make(); base(); other(); }
  )cpp";
  EXPECT_EQ(
      statements(
          Code, callExpr(hasType(hasUnqualifiedDesugaredType(recordType(
                    hasDeclaration(cxxRecordDecl(matchers::tensorClass()))))))),
      2u);
}

TEST(Matchers, ModuleCallsAreCallOperatorsForwardAndRunMethod) {
  EXPECT_EQ(moduleCalls(R"cpp(
    void f(torch::jit::Module m, Batch b) {
      m.forward(1);
      m.run_method("forward", 1);
      b(1);  // a candidate: the rule asks api::calledModule whether it runs one
    }
  )cpp"),
            3u);
  EXPECT_EQ(moduleCalls("void f(at::Tensor t) { t.to(1); }"), 0u);
}

TEST(Matchers, ScriptModuleLoadIsTheOverloadThatGivesAModule) {
  const char *Code = R"cpp(
    void f() {
      torch::jit::load("model.pt");  // gives a module
      torch::jit::load(3);           // same name, no module
    }
  )cpp";
  EXPECT_EQ(statements(Code, callExpr(callee(functionDecl(
                                 matchers::isScriptModuleLoadDecl())))),
            1u);
}

} // namespace
} // namespace torchlint
