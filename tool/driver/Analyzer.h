//===--- Analyzer.h - Analyze one translation unit --------------*- C++ -*-===//

#ifndef TORCHLINT_TOOL_DRIVER_ANALYZER_H
#define TORCHLINT_TOOL_DRIVER_ANALYZER_H

#include "analysis/Summaries.h"
#include "compile/CompileDatabase.h"
#include "core/Finding.h"
#include "output/UnitResult.h"
#include "rules/Rule.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torchlint {

class PrecompiledPrefixes;
class ResultCache;

struct AnalyzerConfig {
  /// Ids of the enabled rules.
  std::vector<std::string> Rules;
  /// clang-tidy's --header-filter: which user headers are reported.
  std::string HeaderFilter;
  /// Name files by the paths the command opened them through, not by their
  /// real paths (--hermetic: in a sandbox every input is a link).
  bool KeepSymlinks = false;
  /// Clang's builtin headers (stddef.h, ...).
  std::string ResourceDir;
  const RuleOptions *Options = nullptr;
  /// Options::FlowBudget; 0: the analyses' default.
  unsigned FlowBudget = 0;
  /// The rules' CheckOptions as text: results depend on them.
  std::string OptionsKey;
  /// toolIdentity(): results and headers of another build are not trusted.
  std::string ToolIdentity;
  /// Accelerations; null: every unit is parsed from scratch.
  const ResultCache *Results = nullptr;
  PrecompiledPrefixes *Prefixes = nullptr;
  /// Prefixes are built by preparePrefix, in a thread of their own (the
  /// language server's): an analysis uses one only when it is ready.
  bool PrefixesBuiltElsewhere = false;
};

/// A unit parsed without errors whose AST stays in memory, so that the
/// summary pass's later rounds run the rules over it again instead of
/// parsing it again.
class ParsedUnit {
public:
  struct Parts;
  explicit ParsedUnit(std::unique_ptr<Parts> Self);
  ~ParsedUnit();

  /// What analyzeTranslationUnit gives for the unit with these Imports
  /// (stored in the result cache the same way), without a parse.
  TranslationUnitResult analyzeAgain(const ImportedSummaries &Imports);

private:
  std::unique_ptr<Parts> Self;
};

/// Analyzes Entry, given what the other units of the program tell (Imports:
/// none for the first round, or for a unit on its own). With Keep, a unit
/// that is parsed (not read from the cache) without errors is left there
/// with its AST.
TranslationUnitResult
analyzeTranslationUnit(const CompileEntry &Entry, const AnalyzerConfig &Config,
                       const ImportedSummaries &Imports = {},
                       std::unique_ptr<ParsedUnit> *Keep = nullptr);

/// What analyzeTranslationUnit would read from Config.Results for Entry
/// with these Imports, if the entry is there and valid, or its failure when
/// the source cannot be read; nothing is parsed. (The dropped-flag warnings
/// of a parse are not part of it.)
std::optional<TranslationUnitResult>
cachedTranslationUnit(const CompileEntry &Entry, const AnalyzerConfig &Config,
                      const ImportedSummaries &Imports);

/// Tells Config.Prefixes which units will ask for which prefix, so that one
/// is precompiled only where it pays.
void expectPrefixes(const std::vector<CompileEntry> &Entries,
                    const AnalyzerConfig &Config);

/// Builds, or loads, the precompiled prefix Entry would use, so that its
/// later parses find it ready; nothing when it has none or Config has no
/// Prefixes.
void preparePrefix(const CompileEntry &Entry, const AnalyzerConfig &Config);

/// Where clang's builtin headers are: $TORCHLINT_RESOURCE_DIR, the directory
/// of the clang that torchlint was built against, or one beside the
/// executable. Empty when none has stddef.h.
std::string findResourceDir(const char *Argv0);

} // namespace torchlint

#endif // TORCHLINT_TOOL_DRIVER_ANALYZER_H
