#include "CheckGlob.h"

#include "llvm/ADT/SmallVector.h"

namespace torchlint {

bool globMatches(llvm::StringRef Pattern, llvm::StringRef Name) {
  // Iterative matching with backtracking to the last star.
  size_t P = 0, N = 0, Star = llvm::StringRef::npos, Mark = 0;
  while (N < Name.size()) {
    if (P < Pattern.size() && Pattern[P] == '*') {
      Star = P++;
      Mark = N;
    } else if (P < Pattern.size() && Pattern[P] == Name[N]) {
      ++P;
      ++N;
    } else if (Star != llvm::StringRef::npos) {
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

CheckGlob::CheckGlob(llvm::StringRef Globs) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Globs.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Part : Parts) {
    Part = Part.trim();
    if (Part.empty())
      continue;
    bool Positive = !Part.consume_front("-");
    Part = Part.trim();
    if (Part.empty() || Part.find_first_of(" \t()") != llvm::StringRef::npos) {
      Invalid.push_back(Part.str());
      continue;
    }
    Items.push_back({Positive, Part.str()});
  }
}

bool CheckGlob::contains(llvm::StringRef Name) const {
  for (auto It = Items.rbegin(); It != Items.rend(); ++It)
    if (globMatches(It->Pattern, Name))
      return It->Positive;
  return false;
}

} // namespace torchlint
