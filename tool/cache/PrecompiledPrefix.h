//===--- PrecompiledPrefix.h - One PCH for libtorch includes ----*- C++ -*-===//
//
// Most of a libtorch TU's parse is <torch/torch.h>. The leading angle-bracket
// includes of a main file (or of the project header it includes first), up
// to the last libtorch one, are precompiled once
// per libtorch configuration and reused by every unit that shares it, in this
// run and in later ones. A configuration is what can change what the prefix
// means: clang, torchlint, the include text, every flag but the include
// folders, and of those only the ones that hold a header the prefix looked up
// (a project's own folders hold none, so sub-projects with their own -I share
// one header; a folder that shadows a libtorch header does not). Function
// bodies outside the user's files are skipped there as in a plain parse, so
// the AST the rules see is the same; a prefix that reaches a file of the
// user's is not precompiled at all, because its declarations must reach the
// rules.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_CACHE_PRECOMPILEDPREFIX_H
#define TORCHLINT_TOOL_CACHE_PRECOMPILEDPREFIX_H

#include "cache/CacheDirectory.h"
#include "cache/FileStamps.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace torchlint {

/// The leading `#include <...>` lines of a main file, up to and including the
/// last one of libtorch (torch/, ATen/, c10/, caffe2/), one per line; empty
/// when the file does not start by including libtorch. The C++ standard
/// library's own headers (<vector>, <cstdlib>) among them are left out: the
/// standard lets a program include them in any order, the main file still
/// includes them after the header, and leaving them out lets units that
/// list different ones share one header. For a Header, its include guard
/// (`#pragma once`, or `#ifndef X` and `#define X`) may come first.
std::string libtorchIncludePrefix(llvm::StringRef Text, bool Header = false);

/// The name of a file's first line of code when that is `#include "NAME"`;
/// empty otherwise.
std::string firstQuotedInclude(llvm::StringRef Text);

/// A folder of the unit's include search given on its command (-I, -iquote,
/// -isystem, -cxx-isystem, -idirafter), absolute.
struct SearchFolder {
  std::string Kind;
  std::string Path;
  bool operator==(const SearchFolder &O) const {
    return Kind == O.Kind && Path == O.Path;
  }
};

/// What a unit asks for: its prefix compiled as it would be compiled.
struct PrefixRequest {
  /// Everything that can change the prefix's meaning but the search folders.
  std::string ConfigurationKey;
  /// In the order of the command.
  std::vector<SearchFolder> Folders;
  std::string Text;
  std::string Directory;
  /// The unit's arguments without its main file and without -fsyntax-only.
  std::vector<std::string> Arguments;
  std::string HeaderFilter;
};

/// Sets Request's search folders and configuration key from its Text,
/// Directory, Arguments and HeaderFilter. The directory counts only when a
/// flag other than a search folder names a relative path.
void describeConfiguration(PrefixRequest &Request,
                           llvm::StringRef ToolIdentity);

/// A precompiled header ready to be passed with -include-pch.
struct PrecompiledHeader {
  std::string Key;
  std::string Path;
  std::vector<FileStamp> Inputs;
};

/// When obtain() may build a header that is not there.
enum class PrefixBuild {
  /// When expect() counted at least two units per worker for its
  /// configuration: the other workers parse without it while it is built,
  /// so with fewer it costs more than it saves (bench: docs/performance.md).
  IfShared,
  /// Never: only one that is ready is used, and asking again later may find
  /// one that another thread built meanwhile.
  Never,
  /// Always: the language server parses a unit again at every save.
  Always,
};

class PrecompiledPrefixes {
public:
  PrecompiledPrefixes(const CacheDirectory &Cache, unsigned Workers = 1)
      : Cache(Cache), Workers(Workers) {}

  /// Counts a unit that will ask for a header of this configuration: one is
  /// built for a configuration that at least two units per worker share, or
  /// reused when an earlier run built it.
  void expect(const PrefixRequest &Request);

  /// The header for Request, building it if this run may; none when the unit
  /// is to be parsed without one (also while another worker is building it:
  /// the unit does not wait). Problem tells of a broken cached header.
  std::optional<PrecompiledHeader>
  obtain(const PrefixRequest &Request, std::string &Problem,
         PrefixBuild When = PrefixBuild::IfShared);

  /// The header could not be used after all: it is removed, and rebuilt by a
  /// later run.
  void discard(const PrecompiledHeader &Header);

private:
  /// One header built for a configuration, with the search folders of the
  /// unit that built it.
  struct Variant {
    std::string Key;
    std::vector<SearchFolder> Folders;
  };
  /// What this run knows of a configuration: the headers built for it, as
  /// recorded in the cache, and every header name their builds looked up.
  struct Configuration {
    bool Read = false;
    std::set<std::string> Names;
    std::vector<Variant> Variants;
    /// Whether a folder holds one of Names; cleared when Names grows.
    std::map<std::string, bool> FolderHoldsName;
    unsigned Expected = 0;
    bool Building = false;
  };

  Configuration &configuration(const std::string &Key);
  std::vector<SearchFolder>
  foldersThatMatter(Configuration &C, const std::vector<SearchFolder> &Folders);
  std::string variantKey(Configuration &C, const PrefixRequest &Request);
  void recordVariant(const std::string &ConfigurationKey, Variant Built,
                     const std::set<std::string> &Names);
  std::optional<PrecompiledHeader> load(const std::string &Key,
                                        std::string &Problem);
  std::optional<PrecompiledHeader> build(const PrefixRequest &Request,
                                         const std::string &Key,
                                         std::set<std::string> &Names);

  const CacheDirectory &Cache;
  const unsigned Workers;
  std::mutex Mutex;
  std::map<std::string, Configuration> Configurations;
  /// Settled for this run, by variant: a header, or none to use.
  std::map<std::string, std::optional<PrecompiledHeader>> Settled;
};

} // namespace torchlint

#endif // TORCHLINT_TOOL_CACHE_PRECOMPILEDPREFIX_H
