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

std::string indentationOf(SourceLocation Loc, const SourceManager &SM) {
  llvm::StringRef Line = textBeforeOnLine(Loc, SM);
  return Line.substr(0, Line.find_first_not_of(" \t")).str();
}

} // namespace torchlint
