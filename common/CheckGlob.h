//===--- CheckGlob.h - clang-tidy's --checks glob list ----------*- C++ -*-===//

#ifndef TORCHLINT_COMMON_CHECKGLOB_H
#define TORCHLINT_COMMON_CHECKGLOB_H

#include <string>
#include <string_view>
#include <vector>

namespace torchlint {

/// A comma-separated list of globs as clang-tidy reads --checks: `*` matches
/// any text, a leading `-` removes what the glob matches, and the last glob
/// that matches a name decides.
class CheckGlob {
public:
  explicit CheckGlob(std::string_view Globs);

  bool contains(std::string_view Name) const;
  /// The globs that were not well formed (empty after trimming is fine).
  const std::vector<std::string> &invalid() const { return Invalid; }

private:
  struct Item {
    bool Positive;
    std::string Pattern;
  };
  std::vector<Item> Items;
  std::vector<std::string> Invalid;
};

/// Matches Name against a single glob where `*` matches any text.
bool globMatches(std::string_view Pattern, std::string_view Name);

} // namespace torchlint

#endif // TORCHLINT_COMMON_CHECKGLOB_H
