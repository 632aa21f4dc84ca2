#include "rules/Rule.h"

using namespace clang;

namespace torchlint {

void Rule::run(const ast_matchers::MatchFinder::MatchResult &Result) {
  for (const auto &[Id, Node] : Result.Nodes.getMap())
    if (!Context.userCode().isAnalyzed(Node.getSourceRange().getBegin(),
                                       *Result.SourceManager))
      return;
  check(Result);
}

} // namespace torchlint
