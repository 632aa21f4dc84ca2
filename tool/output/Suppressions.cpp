#include "output/Suppressions.h"

#include "common/CheckGlob.h"

#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace torchlint {

namespace {

/// Whether a NOLINT marker that ends at Rest (just after its keyword)
/// applies to RuleId: a marker without a list applies to every rule.
bool markerApplies(llvm::StringRef Rest, llvm::StringRef RuleId) {
  if (!Rest.starts_with("("))
    return true;
  size_t Close = Rest.find(')');
  if (Close == llvm::StringRef::npos)
    return true; // clang-tidy treats an unclosed list as no list
  llvm::SmallVector<llvm::StringRef, 4> Globs;
  Rest.substr(1, Close - 1).split(Globs, ',', -1, false);
  for (llvm::StringRef Glob : Globs)
    if (globMatches(Glob.trim(), RuleId))
      return true;
  return false;
}

/// Finds each occurrence of Keyword in Line that is not the start of a longer
/// NOLINT keyword, and asks whether one applies.
bool lineHas(llvm::StringRef Line, llvm::StringRef Keyword,
             llvm::StringRef RuleId) {
  size_t From = 0;
  while ((From = Line.find(Keyword, From)) != llvm::StringRef::npos) {
    llvm::StringRef Rest = Line.substr(From + Keyword.size());
    From += Keyword.size();
    if (Keyword == "NOLINT" &&
        (Rest.starts_with("NEXTLINE") || Rest.starts_with("BEGIN") ||
         Rest.starts_with("END")))
      continue;
    if (markerApplies(Rest, RuleId))
      return true;
  }
  return false;
}

} // namespace

bool isSuppressed(llvm::StringRef Text, unsigned Line, llvm::StringRef RuleId) {
  if (Line == 0 || !Text.contains("NOLINT"))
    return false;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n');
  if (Line > Lines.size())
    return false;
  if (lineHas(Lines[Line - 1], "NOLINT", RuleId))
    return true;
  if (Line >= 2 && lineHas(Lines[Line - 2], "NOLINTNEXTLINE", RuleId))
    return true;
  int Open = 0;
  for (unsigned I = 0; I + 1 < Line; ++I) {
    if (lineHas(Lines[I], "NOLINTBEGIN", RuleId))
      ++Open;
    if (lineHas(Lines[I], "NOLINTEND", RuleId) && Open > 0)
      --Open;
  }
  return Open > 0;
}

} // namespace torchlint
