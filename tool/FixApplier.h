//===--- FixApplier.h - --fix: rewrite files, all or nothing ----*- C++ -*-===//

#ifndef TORCHLINT_TOOL_FIXAPPLIER_H
#define TORCHLINT_TOOL_FIXAPPLIER_H

#include "Finding.h"
#include "Report.h"

#include <string>
#include <vector>

namespace torchlint {

struct FixOutcome {
  unsigned Applied = 0;
  std::vector<std::string> ChangedFiles;
  /// One line per file left untouched, naming the file and why.
  std::vector<std::string> Refused;
};

/// Applies the fix-its of Findings file by file. A file whose fix-its
/// overlap is left untouched; each changed file is written to a temporary
/// file beside it, with its permissions, and renamed over it.
FixOutcome applyFixes(const std::vector<Finding> &Findings,
                      SourceCache &Sources);

/// The text that results from applying Fixes (all for one file, sorted and
/// checked) to Text.
std::string applyToText(const std::string &Text, std::vector<FixIt> Fixes);

/// Sorts Fixes, drops exact duplicates, and returns false when two of them
/// overlap or insert different text at the same place.
bool normalizeFixes(std::vector<FixIt> &Fixes);

} // namespace torchlint

#endif // TORCHLINT_TOOL_FIXAPPLIER_H
