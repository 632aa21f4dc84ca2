//===--- UnitResult.h - What the analysis of one unit gives -----*- C++ -*-===//
//
// The record a unit's analysis, or the result cache, hands to the report:
// its findings, why it could not be analyzed, what it tells the other units.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_OUTPUT_UNITRESULT_H
#define TORCHLINT_TOOL_OUTPUT_UNITRESULT_H

#include "analysis/Summaries.h"
#include "core/Finding.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torchlint {

struct TranslationUnitResult {
  std::string File;
  std::vector<Finding> Findings;
  /// Set when the unit could not be analyzed: clang's first error, as
  /// "path:line:col: error: message", or why the driver refused it.
  std::optional<std::string> Failure;
  /// Set when the unit has compile errors that clang recovered from: its
  /// first error. The findings and the summary are those of the code clang
  /// could make sense of, without fix-its.
  std::optional<std::string> CompileError;
  /// What the user should know about how the unit was analyzed: flags
  /// dropped from its compile command, a function an analysis gave up on.
  std::vector<std::string> Warnings;
  /// textDigest() of each file with fix-its, as it was parsed.
  std::map<std::string, uint64_t> Digests;
  /// The findings were read from the result cache, not parsed.
  bool FromCache = false;
  /// What the unit tells the others (none when it could not be analyzed).
  std::optional<UnitSummary> Summary;
  /// Every file the parse read (for a result from the cache, those it was
  /// made from): the language server analyzes the unit again when one of
  /// them is saved.
  std::vector<std::string> Inputs;
};

} // namespace torchlint

#endif // TORCHLINT_TOOL_OUTPUT_UNITRESULT_H
