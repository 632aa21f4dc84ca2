#include "common/CheckGlob.h"

// No LLVM here: the replay runtime, which builds without LLVM, selects
// findings with the same globs.

namespace torchlint {

namespace {

std::string_view trim(std::string_view Text) {
  size_t Begin = Text.find_first_not_of(" \t\r\n");
  if (Begin == std::string_view::npos)
    return {};
  size_t End = Text.find_last_not_of(" \t\r\n");
  return Text.substr(Begin, End - Begin + 1);
}

} // namespace

bool globMatches(std::string_view Pattern, std::string_view Name) {
  // Iterative matching with backtracking to the last star.
  size_t P = 0, N = 0, Star = std::string_view::npos, Mark = 0;
  while (N < Name.size()) {
    if (P < Pattern.size() && Pattern[P] == '*') {
      Star = P++;
      Mark = N;
    } else if (P < Pattern.size() && Pattern[P] == Name[N]) {
      ++P;
      ++N;
    } else if (Star != std::string_view::npos) {
      P = Star + 1;
      N = ++Mark;
    } else {
      return false;
    }
  }
  while (P < Pattern.size() && Pattern[P] == '*')
    ++P;
  return P == Pattern.size();
}

CheckGlob::CheckGlob(std::string_view Globs) {
  while (!Globs.empty()) {
    size_t Comma = Globs.find(',');
    std::string_view Part = trim(Globs.substr(0, Comma));
    Globs = Comma == std::string_view::npos ? std::string_view()
                                            : Globs.substr(Comma + 1);
    if (Part.empty())
      continue;
    bool Positive = Part.front() != '-';
    if (!Positive)
      Part = trim(Part.substr(1));
    if (Part.empty() || Part.find_first_of(" \t()") != std::string_view::npos) {
      Invalid.emplace_back(Part);
      continue;
    }
    Items.push_back({Positive, std::string(Part)});
  }
}

bool CheckGlob::contains(std::string_view Name) const {
  for (auto It = Items.rbegin(); It != Items.rend(); ++It)
    if (globMatches(It->Pattern, Name))
      return It->Positive;
  return false;
}

} // namespace torchlint
