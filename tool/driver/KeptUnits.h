//===--- KeptUnits.h - Which parsed units stay in memory --------*- C++ -*-===//
//
// The summary pass analyzes a unit again when the others tell it more. A
// unit kept with its AST is analyzed again without a new parse, but keeping
// costs memory (and, on a machine with costly page faults, time), so a unit
// is kept only when it may be told something, and only within a budget.
// Which units are kept never changes a finding.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_DRIVER_KEPTUNITS_H
#define TORCHLINT_TOOL_DRIVER_KEPTUNITS_H

#include "analysis/Summaries.h"
#include "compile/CompileDatabase.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace torchlint {

/// A quarter of the machine's memory; 0 where it cannot be told.
uint64_t defaultKeptMemory();

/// Whether one more parsed unit may stay in memory: this process's resident
/// memory under Budget, and the machine not short of memory (other
/// processes, other torchlint runs, have their share). Where memory cannot
/// be read, no unit is kept.
bool mayKeepAnother(uint64_t Budget);

/// What a source file names, read as words before it is parsed: a guess at
/// which functions a unit not yet analyzed calls or defines. A wrong guess
/// costs memory or a parse, never a finding.
struct SourceWords {
  llvm::StringSet<> Named;
  /// Followed by a parenthesized list and a body: "f(...) {",
  /// "f(...) const {".
  llvm::StringSet<> Defined;
};
SourceWords wordsOfSource(llvm::StringRef Source);

/// During the first round, in any order and from any thread: whether a unit
/// just analyzed may be told something by the others, so that keeping it
/// pays. It may if the units analyzed before it already tell it something
/// (the second round surely analyzes it again), or if one not analyzed yet
/// calls a function it defines (names it in its source, does not define it,
/// and has no definition nearer to it; a constructor or an operator is
/// named by its class, a module's forward by its holder too) or defines one
/// it calls.
class FirstRoundListeners {
public:
  explicit FirstRoundListeners(const std::vector<CompileEntry> &Entries);

  /// Unit I was analyzed, with this summary (none: it could not be).
  bool mayBeTold(size_t I, const std::optional<UnitSummary> &Summary);

private:
  bool calledByOneToCome(size_t I, const std::string &Mangled);
  bool definedByOneToCome(size_t I, const std::string &Mangled);

  std::vector<std::string> Files;
  std::vector<SourceWords> Words;
  /// The units that name each word: a function's callers and definers are
  /// among those that name it.
  llvm::StringMap<std::vector<size_t>> NamedBy;
  std::mutex Mutex;
  std::vector<bool> Done;
  std::vector<std::optional<UnitSummary>> Finished;
};

} // namespace torchlint

#endif // TORCHLINT_TOOL_DRIVER_KEPTUNITS_H
