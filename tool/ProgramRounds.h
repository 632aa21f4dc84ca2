//===--- ProgramRounds.h - The units of a program, told of each other -*- C++
//-*-===//
//
// The summary pass: every unit is analyzed alone first; then each unit whose
// imports (what the others' summaries say of the functions it asked about)
// changed is analyzed again with them, until no import changes or each unit
// has been analyzed MaxRounds times. The rounds depend only on the units, not
// on how many run in parallel, so the findings are the same for every -j.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_PROGRAMROUNDS_H
#define TORCHLINT_TOOL_PROGRAMROUNDS_H

#include "Scheduler.h"

#include <functional>
#include <vector>

namespace torchlint {

/// Analyses per unit at most: alone, then twice with what the others tell.
/// A fact crosses MaxRounds - 1 unit boundaries (a device chosen in main.cpp,
/// passed through train.cpp, to a loss in loss.cpp).
constexpr unsigned MaxRounds = 3;

using ProgramUnitAnalyzer = std::function<TranslationUnitResult(
    const CompileEntry &Entry, const ImportedSummaries &Imports)>;

struct ProgramRun {
  std::vector<TranslationUnitResult> Results;
  /// Analyses run in all (units analyzed again count again).
  size_t Analyses = 0;
  unsigned Rounds = 0;
};

/// Rounds: at most this many analyses per unit (1: each unit on its own).
ProgramRun analyzeProgram(const std::vector<CompileEntry> &Entries,
                          const ProgramUnitAnalyzer &Analyze, unsigned Jobs,
                          const ProgressCallback &Progress,
                          unsigned Rounds = MaxRounds);

} // namespace torchlint

#endif // TORCHLINT_TOOL_PROGRAMROUNDS_H
