//===--- FixApplier.h - --fix: rewrite files, all or nothing ----*- C++ -*-===//

#ifndef TORCHLINT_TOOL_DRIVER_FIXAPPLIER_H
#define TORCHLINT_TOOL_DRIVER_FIXAPPLIER_H

#include "core/Finding.h"
#include "output/Report.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace torchlint {

struct FixOutcome {
  unsigned Applied = 0;
  std::vector<std::string> ChangedFiles;
  /// One line per file left untouched, naming the file and why.
  std::vector<std::string> Refused;
};

/// A digest of a file's text, to notice that it changed.
uint64_t textDigest(llvm::StringRef Text);

/// Applies the fix-its of Findings file by file. A file is left untouched
/// when its fix-its overlap, when it is read-only, or when its text is no
/// longer the one they were computed on (Analyzed: textDigest() of each
/// file's text at analysis; a file without one is not checked). Each changed
/// file is written to a temporary file beside it, with its permissions, and
/// renamed over it; inserted line breaks follow the file's (CRLF or LF).
FixOutcome applyFixes(const std::vector<Finding> &Findings,
                      SourceCache &Sources,
                      const std::map<std::string, uint64_t> &Analyzed = {});

/// Line breaks in the replacements of Fixes made those of Text (CRLF where
/// its first line ends with one).
void matchLineBreaks(const std::string &Text, std::vector<FixIt> &Fixes);

/// The text that results from applying Fixes (all for one file, sorted and
/// checked) to Text.
std::string applyToText(const std::string &Text, std::vector<FixIt> Fixes);

/// Sorts Fixes, drops exact duplicates, and returns false when two of them
/// overlap or insert different text at the same place.
bool normalizeFixes(std::vector<FixIt> &Fixes);

} // namespace torchlint

#endif // TORCHLINT_TOOL_DRIVER_FIXAPPLIER_H
