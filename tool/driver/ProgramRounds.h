//===--- ProgramRounds.h - The units of a program, told of each other -*- C++
//-*-===//
//
// The summary pass: every unit is analyzed alone first; then each unit whose
// imports (what the others' summaries say of the functions it asked about)
// changed is analyzed again with them, until no import changes or each unit
// has been analyzed MaxRounds times. The rounds depend only on the units, not
// on how many run in parallel, so the findings are the same for every -j.
// A unit that may be analyzed again keeps its AST in memory, within a budget,
// so that the later rounds cost the rules' time and not a new parse.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_DRIVER_PROGRAMROUNDS_H
#define TORCHLINT_TOOL_DRIVER_PROGRAMROUNDS_H

#include "driver/Scheduler.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace torchlint {

/// Analyses per unit at most: alone, then twice with what the others tell.
/// A fact crosses MaxRounds - 1 unit boundaries (a device chosen in main.cpp,
/// passed through train.cpp, to a loss in loss.cpp).
constexpr unsigned MaxRounds = 3;

/// Keep: where to leave the parsed unit, when it can be (may be ignored).
using ProgramUnitAnalyzer = std::function<TranslationUnitResult(
    const CompileEntry &Entry, const ImportedSummaries &Imports,
    std::unique_ptr<ParsedUnit> *Keep)>;

struct ProgramRun {
  std::vector<TranslationUnitResult> Results;
  /// Analyses run in all (units analyzed again count again).
  size_t Analyses = 0;
  /// Of the later rounds' analyses, those that parsed the unit again.
  size_t Reparsed = 0;
  unsigned Rounds = 0;
};

/// Rounds: at most this many analyses per unit (1: each unit on its own).
/// KeptMemory: the process's resident memory up to which parsed units are
/// kept between rounds (0: every later analysis parses again).
ProgramRun analyzeProgram(const std::vector<CompileEntry> &Entries,
                          const ProgramUnitAnalyzer &Analyze, unsigned Jobs,
                          const ProgressCallback &Progress,
                          unsigned Rounds = MaxRounds, uint64_t KeptMemory = 0);

/// The result a unit was given for these imports by an earlier analysis, if
/// it is still valid (every file it was made from unchanged); nothing is
/// parsed.
using CachedUnitResult = std::function<std::optional<TranslationUnitResult>(
    const CompileEntry &Entry, const ImportedSummaries &Imports)>;

struct UnitInProgram {
  /// Unit Self's last analysis.
  TranslationUnitResult Result;
  /// What each unit was given in its last round, and its last summary (none
  /// for a unit that could not be analyzed, or that the cache does not know).
  std::vector<ImportedSummaries> Given;
  std::vector<std::optional<UnitSummary>> Summaries;
  /// The other units of which no valid result was found, and the first of
  /// them: Self was then analyzed on its own.
  size_t Unknown = 0;
  std::string FirstUnknown;
};

/// The summary pass as the language server can afford it: unit Self is
/// analyzed (Analyze, its AST kept between rounds); every other unit is only
/// looked up (Cached), round by round with the imports the pass gives it.
/// When a CLI run left every unit's results and no file changed since, the
/// rounds are those of analyzeProgram, and Self's result is the CLI's.
/// Unless every other unit has a valid result on its own, Self is analyzed
/// alone: a unit not known may call Self's functions, or define one nearer
/// to a call than the unit that would answer for it. A unit known on its own
/// but not for a later round's imports keeps its last known summary, which
/// knows less: a device passed by a caller it had not heard of yet is a
/// run-time choice, as in the one-unit analysis.
UnitInProgram analyzeUnitInProgram(const std::vector<CompileEntry> &Entries,
                                   size_t Self,
                                   const ProgramUnitAnalyzer &Analyze,
                                   const CachedUnitResult &Cached,
                                   unsigned Rounds = MaxRounds);

} // namespace torchlint

#endif // TORCHLINT_TOOL_DRIVER_PROGRAMROUNDS_H
