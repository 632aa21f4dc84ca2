#include "core/FixIts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace torchlint {

llvm::StringRef textBeforeOnLine(SourceLocation Loc, const SourceManager &SM) {
  std::pair<FileID, unsigned> At = SM.getDecomposedLoc(Loc);
  bool Invalid = false;
  llvm::StringRef Buffer = SM.getBufferData(At.first, &Invalid);
  if (Invalid)
    return "";
  size_t LineStart = Buffer.rfind('\n', At.second ? At.second - 1 : 0);
  LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
  return Buffer.slice(LineStart, At.second);
}

SourceLocation lastTokenOf(const Stmt *S, ASTContext &Ctx) {
  // An expression's range, and that of an if or a loop whose body is one,
  // stops before the semicolon.
  SourceLocation End = S->getEndLoc();
  if (isa<CompoundStmt>(S))
    return End;
  std::optional<Token> Next =
      Lexer::findNextToken(End, Ctx.getSourceManager(), Ctx.getLangOpts());
  return Next && Next->is(tok::semi) ? Next->getLocation() : End;
}

CharSourceRange wholeLinesOf(const Stmt *S, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Begin = S->getBeginLoc();
  SourceLocation Last = lastTokenOf(S, Ctx);
  llvm::StringRef Before = textBeforeOnLine(Begin, SM);
  if (Begin.isMacroID() || Last.isMacroID() ||
      Before.find_first_not_of(" \t") != llvm::StringRef::npos)
    return CharSourceRange();
  SourceLocation AfterLast =
      Lexer::getLocForEndOfToken(Last, 0, SM, Ctx.getLangOpts());
  std::pair<FileID, unsigned> Start = SM.getDecomposedLoc(Begin);
  std::pair<FileID, unsigned> End = SM.getDecomposedLoc(AfterLast);
  bool Invalid = false;
  llvm::StringRef Buffer = SM.getBufferData(End.first, &Invalid);
  if (Invalid || Start.first != End.first || Start.second < Before.size() + 1)
    return CharSourceRange();
  size_t LineEnd = Buffer.find('\n', End.second);
  if (LineEnd == llvm::StringRef::npos)
    return CharSourceRange();
  llvm::StringRef Rest = Buffer.slice(End.second, LineEnd).ltrim(" \t");
  Rest = Rest.rtrim("\r");
  // A comment that ends in a backslash continues on the next line.
  if (!Rest.empty() && (!Rest.starts_with("//") || Rest.ends_with("\\")))
    return CharSourceRange();
  // From the line break before the lines to the one that ends them (not
  // included): a range that neither starts nor ends before a space, which
  // clang's fix-it rewriter would otherwise widen by one.
  size_t LineBreakBefore = Start.second - Before.size() - 1;
  if (LineBreakBefore > 0 && Buffer[LineBreakBefore - 1] == '\r')
    --LineBreakBefore;
  size_t Stop =
      LineEnd > 0 && Buffer[LineEnd - 1] == '\r' ? LineEnd - 1 : LineEnd;
  return CharSourceRange::getCharRange(
      Begin.getLocWithOffset(static_cast<int>(LineBreakBefore) -
                             static_cast<int>(Start.second)),
      Begin.getLocWithOffset(static_cast<int>(Stop) -
                             static_cast<int>(Start.second)));
}

std::string indentationOf(SourceLocation Loc, const SourceManager &SM) {
  llvm::StringRef Line = textBeforeOnLine(Loc, SM);
  return Line.substr(0, Line.find_first_not_of(" \t")).str();
}

} // namespace torchlint
