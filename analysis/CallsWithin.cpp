#include "analysis/CallsWithin.h"

#include "core/UserCode.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <vector>

using namespace clang;

namespace torchlint {
namespace {
class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  bool VisitCallExpr(CallExpr *Call) {
    Calls.push_back(Call);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    Calls.push_back(Construct);
    return true;
  }
  std::vector<const Expr *> Calls;
};
} // namespace

CallWithin findCallWithin(const Stmt *S, unsigned Depth, const UserCode &Code,
                          const SourceManager &SM,
                          llvm::function_ref<bool(const Expr *)> Matches,
                          SourceLocation Limit) {
  if (!S)
    return {};
  CallCollector Collector;
  Collector.TraverseStmt(const_cast<Stmt *>(S));
  for (const Expr *Call : Collector.Calls) {
    if (Limit.isValid() &&
        !SM.isBeforeInTranslationUnit(Call->getEndLoc(), Limit))
      continue;
    if (Matches(Call))
      return {Call, Call};
    const auto *Plain = dyn_cast<CallExpr>(Call);
    const FunctionDecl *Callee = Plain ? Plain->getDirectCallee() : nullptr;
    const FunctionDecl *Definition = nullptr;
    if (Depth > 0 && Callee && Callee->hasBody(Definition) &&
        Code.isAnalyzed(Definition->getLocation(), SM))
      if (CallWithin Inner = findCallWithin(Definition->getBody(), Depth - 1,
                                            Code, SM, Matches);
          Inner.Match)
        return {Call, Inner.Match};
  }
  return {};
}

} // namespace torchlint
