#include "rules/Rule.h"

#include "analysis/FunctionCfg.h"

#include "clang/AST/ASTContext.h"

using namespace clang;

namespace torchlint {

namespace {
/// A template's pattern is not code that runs: its instantiations are, and
/// each is matched and checked as itself.
bool inTemplatePattern(const DynTypedNode &Node, ASTContext &Ctx) {
  if (const auto *S = Node.get<Stmt>())
    return torchlint::inTemplatePattern(S, Ctx);
  if (const auto *D = Node.get<Decl>())
    return D->isTemplated();
  return false;
}
} // namespace

void Rule::run(const ast_matchers::MatchFinder::MatchResult &Result) {
  for (const auto &[Id, Node] : Result.Nodes.getMap())
    if (!Context.userCode().isAnalyzed(Node.getSourceRange().getBegin(),
                                       *Result.SourceManager) ||
        inTemplatePattern(Node, *Result.Context))
      return;
  check(Result);
}

} // namespace torchlint
