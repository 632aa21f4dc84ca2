//===--- ResultCache.h - Findings kept until a unit changes -----*- C++ -*-===//
//
// A unit whose every input file, compile command, rules and options are as
// they were, analyzed by the same torchlint, has the same findings: they are
// read back instead of parsing again. The key covers the command, the rules,
// their options and the tool itself; the entry lists every file the parse
// opened, each checked before the entry is trusted.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_CACHE_RESULTCACHE_H
#define TORCHLINT_TOOL_CACHE_RESULTCACHE_H

#include "analysis/Summaries.h"
#include "cache/CacheDirectory.h"
#include "cache/FileStamps.h"
#include "core/Finding.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torchlint {

struct CachedResult {
  /// The unit could not be analyzed: clang's first error, reported again as
  /// long as the files it read, and the places it searched for a missing
  /// header, are as they were.
  std::optional<std::string> Failure;
  /// The unit was analyzed as far as clang recovered from this error.
  std::optional<std::string> CompileError;
  std::vector<Finding> Findings;
  std::map<std::string, uint64_t> Digests;
  /// What the analysis told the user besides findings.
  std::vector<std::string> Notices;
  /// What the unit tells the other units.
  UnitSummary Summary;
  /// The files the parse read (filled by lookup; store takes their stamps).
  std::vector<std::string> Inputs;
};

class ResultCache {
public:
  /// How often an entry's input files are looked at.
  enum class InputChecks {
    /// At every lookup: files change between lookups (an editor's server).
    EachLookup,
    /// Once per file for the cache's lifetime, which is one run: a batch run
    /// reads many entries listing the same headers.
    OncePerRun,
  };

  explicit ResultCache(const CacheDirectory &Cache,
                       InputChecks Checks = InputChecks::EachLookup)
      : Cache(Cache) {
    if (Checks == InputChecks::OncePerRun)
      Seen = std::make_unique<FilesAsFirstSeen>();
  }

  /// The result stored under Key, if every file it was made from is
  /// unchanged. Problem tells of an entry that could not be read.
  std::optional<CachedResult> lookup(const std::string &Key,
                                     std::string &Problem) const;
  void store(const std::string &Key, const CachedResult &Result,
             const std::vector<FileStamp> &Inputs) const;

private:
  const CacheDirectory &Cache;
  std::unique_ptr<FilesAsFirstSeen> Seen;
};

/// What identifies this torchlint build: its version, its clang, and the
/// executable itself, so that a rebuilt tool never trusts an older one's
/// results.
std::string toolIdentity();

} // namespace torchlint

#endif // TORCHLINT_TOOL_CACHE_RESULTCACHE_H
