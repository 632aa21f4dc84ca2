#include "analysis/CodeWithErrors.h"

#include "core/UserCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"

using namespace clang;

namespace torchlint {

namespace {

class ErrorFinder : public RecursiveASTVisitor<ErrorFinder> {
public:
  ErrorFinder(ASTContext &Ctx, const UserCode &Code,
              std::vector<SourceRange> &Ranges)
      : Ctx(Ctx), Code(Code), Ranges(Ranges) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    // Only the user's code is reported, so only it is searched.
    if (!isa<TranslationUnitDecl>(D) &&
        !Code.isAnalyzed(D->getLocation(), Ctx.getSourceManager()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->isInvalidDecl() && FD->doesThisDeclarationHaveABody())
      add(FD->getSourceRange());
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    if (VD->isInvalidDecl())
      addStatementAround(DynTypedNode::create(*VD), VD->getSourceRange());
    return true;
  }

  bool TraverseStmt(Stmt *S, DataRecursionQueue *Queue = nullptr) {
    // The outermost expression with an error stands for all within it.
    if (const auto *E = dyn_cast_or_null<Expr>(S))
      if (E->containsErrors()) {
        addStatementAround(DynTypedNode::create(*E), E->getSourceRange());
        return true;
      }
    return RecursiveASTVisitor::TraverseStmt(S, Queue);
  }

private:
  /// The full expression that holds Node, or the declaration statement
  /// whose initializer it is: all of it is a guess. Not the statement
  /// around a condition (a loop whose bound clang could not compute still
  /// has a body to analyze).
  void addStatementAround(DynTypedNode Node, SourceRange Fallback) {
    for (int Depth = 0; Depth < 256; ++Depth) {
      DynTypedNodeList Parents = Ctx.getParents(Node);
      if (Parents.empty())
        break;
      const DynTypedNode &Parent = Parents[0];
      if (Parent.get<Expr>() || Parent.get<VarDecl>() ||
          Parent.get<DeclStmt>()) {
        Node = Parent;
        continue;
      }
      add(Node.getSourceRange());
      return;
    }
    add(Fallback);
  }

  void add(SourceRange Range) {
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Begin = SM.getExpansionLoc(Range.getBegin());
    SourceLocation End = SM.getExpansionRange(Range.getEnd()).getEnd();
    if (Begin.isValid() && End.isValid() &&
        SM.getFileID(Begin) == SM.getFileID(End))
      Ranges.push_back({Begin, End});
    else if (Begin.isValid())
      Ranges.push_back({Begin, Begin});
  }

  ASTContext &Ctx;
  const UserCode &Code;
  std::vector<SourceRange> &Ranges;
};

} // namespace

CodeWithErrors::CodeWithErrors(ASTContext &Ctx, const UserCode &Code)
    : Ctx(Ctx) {
  if (!Ctx.getDiagnostics().hasErrorOccurred())
    return;
  ErrorFinder(Ctx, Code, Ranges).TraverseAST(Ctx);
}

bool CodeWithErrors::contains(SourceLocation Loc) const {
  if (Ranges.empty() || Loc.isInvalid())
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation At = SM.getExpansionLoc(Loc);
  FileID File = SM.getFileID(At);
  for (const SourceRange &Range : Ranges)
    if (SM.getFileID(Range.getBegin()) == File &&
        !SM.isBeforeInTranslationUnit(At, Range.getBegin()) &&
        !SM.isBeforeInTranslationUnit(Range.getEnd(), At))
      return true;
  return false;
}

} // namespace torchlint
