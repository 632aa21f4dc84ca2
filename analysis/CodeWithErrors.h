//===--- CodeWithErrors.h - Where clang recovered from errors ---*- C++ -*-===//
//
// A unit with compile errors is still analyzed, as clang-tidy does: a header
// that the build generates and a CI job has not built yet, or one line
// written for another libtorch, leaves the rest of the unit as it is. Where
// clang recovered from an error (a statement holding an expression it could
// not type, a function whose declaration is invalid), the analyses see a
// guess, and no rule reports there.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_CODEWITHERRORS_H
#define TORCHLINT_ANALYSIS_CODEWITHERRORS_H

#include "clang/Basic/SourceLocation.h"

#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace torchlint {

class UserCode;

class CodeWithErrors {
public:
  /// Finds the places in the user's code of Ctx's traversal scope; none
  /// when the unit compiled.
  CodeWithErrors(clang::ASTContext &Ctx, const UserCode &Code);

  clang::ASTContext &astContext() const { return Ctx; }
  /// Loc (its expansion) is in a statement or function clang recovered in.
  bool contains(clang::SourceLocation Loc) const;

private:
  clang::ASTContext &Ctx;
  /// Expansion ranges, each in one file.
  std::vector<clang::SourceRange> Ranges;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_CODEWITHERRORS_H
