//===--- Options.h - The command line of torchlint --------------*- C++ -*-===//

#ifndef TORCHLINT_TOOL_DRIVER_OPTIONS_H
#define TORCHLINT_TOOL_DRIVER_OPTIONS_H

#include "compile/Sharding.h"
#include "core/Finding.h"
#include "driver/LineFilter.h"
#include "output/Writers.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace torchlint {

enum class ColorMode { Auto, Always, Never };

struct Options {
  std::string Database;
  std::vector<std::string> Sources;
  unsigned Jobs = 0; ///< 0: one per core
  /// Appended to "torch-*" as clang-tidy appends --checks to its defaults.
  std::string Checks;
  bool ListChecks = false;
  OutputFormat Format = OutputFormat::Text;
  std::string OutputFile;
  bool Fix = false;
  Level FailOn = Level::Warning;
  ColorMode Color = ColorMode::Auto;
  bool Quiet = false;
  std::string HeaderFilter;
  /// Also write a SARIF log here, whatever --format is.
  std::string ExportSarif;
  /// Paths in SARIF are relative to it; empty: the repository of the sources.
  std::string SourceRoot;
  std::string SarifCategory;
  /// Report only findings that are not in this SARIF log.
  std::string Baseline;
  /// --line-filter: report only findings on these lines; empty: all.
  LineFilter Lines;
  /// A .clang-tidy file whose CheckOptions configure the rules; empty: the
  /// nearest .clang-tidy above the sources, if any.
  std::string ConfigFile;
  /// --shard=K/N; none: every entry.
  std::optional<Shard> Part;
  /// Where results and precompiled headers are kept; empty: beside the
  /// compilation database.
  std::string CacheDir;
  uint64_t CacheMegabytes = 2048;
  bool NoCache = false;
  bool NoPch = false;
  /// Read and write nothing the command line does not name (a build
  /// system's action): no cache, no precompiled prefix, no search for
  /// .clang-tidy or a git work tree, SARIF without absolute paths.
  bool Hermetic = false;
  /// Each unit on its own: no summary pass.
  bool NoSummaries = false;
  /// --summary-memory: resident memory up to which parsed units are kept
  /// between the summary pass's rounds; unset: a quarter of the machine's.
  std::optional<uint64_t> SummaryMegabytes;
  /// --timeout: a unit analyzed longer is reported as not analyzed; 0: none.
  unsigned TimeoutSeconds = 0;
  /// --flow-budget: visits of each block a flow analysis may make before it
  /// gives up on a function; 0: the analyses' default.
  unsigned FlowBudget = 0;
  /// Internal: analyze only this entry of the database and print its result
  /// as JSON (how --timeout runs each unit in a process of its own).
  std::optional<size_t> InternalUnit;
  /// Internal: a JSON file of the summaries that unit is given.
  std::string InternalImports;
  bool Help = false;
  bool Version = false;
};

/// Parses argv. The error, if any, is one line for the user.
llvm::Expected<Options> parseOptions(int Argc, const char *const *Argv);

const char *usageText();

} // namespace torchlint

#endif // TORCHLINT_TOOL_DRIVER_OPTIONS_H
