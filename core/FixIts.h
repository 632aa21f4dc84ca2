//===--- FixIts.h - Where the text of a fix-it goes -------------*- C++ -*-===//
//
// Small questions about the source text that every fix-it asks: the token
// that ends a statement, and the indentation of a line added beside another.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_CORE_FIXITS_H
#define TORCHLINT_CORE_FIXITS_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace clang {
class ASTContext;
class SourceManager;
class Stmt;
} // namespace clang

namespace torchlint {

/// The text of Loc's line before Loc, for the indentation of a line that a
/// fix-it inserts; empty when the buffer cannot be read.
llvm::StringRef textBeforeOnLine(clang::SourceLocation Loc,
                                 const clang::SourceManager &SM);

/// The last token of a statement of a block: its semicolon, also that of the
/// body of an if or a loop without braces.
clang::SourceLocation lastTokenOf(const clang::Stmt *S, clang::ASTContext &Ctx);

/// What removes the lines S fills: from the line break before them to the
/// one that ends them, when nothing else is written on them but a trailing
/// `//` comment, which belongs to them; an invalid range otherwise.
clang::CharSourceRange wholeLinesOf(const clang::Stmt *S,
                                    clang::ASTContext &Ctx);

/// The indentation of Loc's line, for a line that a fix-it adds beside it.
std::string indentationOf(clang::SourceLocation Loc,
                          const clang::SourceManager &SM);

} // namespace torchlint

#endif // TORCHLINT_CORE_FIXITS_H
