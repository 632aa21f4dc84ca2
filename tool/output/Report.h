//===--- Report.h - What one run found, for the writers ---------*- C++ -*-===//

#ifndef TORCHLINT_TOOL_OUTPUT_REPORT_H
#define TORCHLINT_TOOL_OUTPUT_REPORT_H

#include "core/Finding.h"
#include "output/LineStarts.h"
#include "output/UnitResult.h"
#include "rules/Rule.h"

#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace torchlint {

/// A unit that could not be analyzed, or a warning about how one was.
struct AnalysisFailure {
  std::string File;
  /// clang's first error, "path:line:col: error: message"; or the warning.
  std::string Message;
  /// The unit has compile errors and was analyzed where clang recovered.
  bool AnalyzedInPart = false;
};

/// What a failure means for the unit's findings, before its message.
inline const char *consequence(const AnalysisFailure &Failure) {
  return Failure.AnalyzedInPart
             ? "does not compile; analyzed only where clang recovered, "
               "without fix-its"
             : "could not be analyzed";
}

struct Report {
  /// Sorted, de-duplicated, suppressions removed.
  std::vector<Finding> Findings;
  std::vector<AnalysisFailure> Failures;
  /// Units analyzed with a warning (flags dropped from their command).
  std::vector<AnalysisFailure> Warnings;
  /// The text each file with fix-its had when it was analyzed, for --fix.
  std::map<std::string, uint64_t> Digests;
  /// The enabled rules, in registry order.
  std::vector<const RuleInfo *> Rules;
  size_t TranslationUnits = 0;
};

/// File contents, read once, for printing source lines, converting columns,
/// honouring NOLINT and applying fix-its.
class SourceCache {
public:
  /// Null when the file cannot be read.
  const std::string *text(const std::string &Path);

  /// The text of a 1-based line, without its line break.
  llvm::StringRef line(const std::string &Path, unsigned Line);

  /// The 1-based line and byte column of Offset, clamped to the text; 1:1
  /// when the file cannot be read.
  std::pair<unsigned, unsigned> position(const std::string &Path,
                                         unsigned Offset);

  /// Forget a file, after it was rewritten.
  void forget(const std::string &Path) { Files.erase(Path); }

private:
  struct Entry {
    bool Readable = false;
    std::string Text;
    LineStarts Lines;
  };
  Entry &entry(const std::string &Path);
  llvm::StringMap<Entry> Files;
};

/// The findings of Results as one report: NOLINT suppressions honoured,
/// sorted, and one finding per rule and place where units share a header.
Report buildReport(std::vector<TranslationUnitResult> Results,
                   std::vector<const RuleInfo *> Rules, SourceCache &Sources);

} // namespace torchlint

#endif // TORCHLINT_TOOL_OUTPUT_REPORT_H
