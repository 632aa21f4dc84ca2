//===--- LineFilter.h - --line-filter: which lines are reported -*- C++ -*-===//
//
// clang-tidy's --line-filter, with its syntax and meaning, so that the tools
// built around it (clang-tidy-diff.py, pre-commit hooks, review bots) drive
// torchlint the same way: a JSON array of {"name": FILE, "lines": [[FIRST,
// LAST], ...]}; a finding is reported only where its file ends with a
// listed name and, when lines are given, its line is in one of the ranges.
// The whole program is still analyzed: the filter chooses what is shown,
// not what the analysis knows.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_DRIVER_LINEFILTER_H
#define TORCHLINT_TOOL_DRIVER_LINEFILTER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace torchlint {

struct FileLines {
  std::string Name;
  /// Inclusive ranges; none: every line of the file.
  std::vector<std::pair<unsigned, unsigned>> Lines;
};

using LineFilter = std::vector<FileLines>;

llvm::Expected<LineFilter> parseLineFilter(llvm::StringRef Json);

/// An empty filter passes everything, as in clang-tidy.
bool passesLineFilter(const LineFilter &Filter, llvm::StringRef File,
                      unsigned Line);

} // namespace torchlint

#endif
