//===--- PrecompiledPrefix.h - One PCH for libtorch includes ----*- C++ -*-===//
//
// Most of a libtorch TU's parse is <torch/torch.h>. The leading angle-bracket
// includes of a main file, up to its last libtorch one, are precompiled once
// per (clang, torchlint, directory, full flag set, include text) and reused by
// every unit that shares them, in this run and in later ones. Function bodies
// outside the user's files are skipped there as in a plain parse, so the
// AST the rules see is the same; a prefix that reaches a file of the user's is
// not precompiled at all, because its declarations must reach the rules.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_PRECOMPILEDPREFIX_H
#define TORCHLINT_TOOL_PRECOMPILEDPREFIX_H

#include "CacheDirectory.h"
#include "FileStamps.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace torchlint {

/// The leading `#include <...>` lines of a main file, up to and including the
/// last one of libtorch (torch/, ATen/, c10/, caffe2/), one per line; empty
/// when the file does not start by including libtorch.
std::string libtorchIncludePrefix(llvm::StringRef MainText);

/// What a unit asks for: its prefix compiled as it would be compiled.
struct PrefixRequest {
  std::string Key;
  std::string Text;
  std::string Directory;
  /// The unit's arguments without its main file and without -fsyntax-only.
  std::vector<std::string> Arguments;
  std::string HeaderFilter;
};

/// A precompiled header ready to be passed with -include-pch.
struct PrecompiledHeader {
  std::string Key;
  std::string Path;
  std::vector<FileStamp> Inputs;
};

/// When obtain() may build a header that is not there.
enum class PrefixBuild {
  /// When expect() counted two or more units for it.
  IfShared,
  /// Never: only one that is ready is used, and asking again later may find
  /// one that another thread built meanwhile.
  Never,
  /// Always: the language server parses a unit again at every save.
  Always,
};

class PrecompiledPrefixes {
public:
  explicit PrecompiledPrefixes(const CacheDirectory &Cache) : Cache(Cache) {}

  /// Counts a unit that will ask for Key: a header is built for a prefix
  /// that two or more units share (for one unit, building costs more than it
  /// saves), or reused when an earlier run built it.
  void expect(const std::string &Key);

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
  std::optional<PrecompiledHeader> load(const std::string &Key,
                                        std::string &Problem);
  std::optional<PrecompiledHeader> build(const PrefixRequest &Request);

  const CacheDirectory &Cache;
  std::mutex Mutex;
  std::map<std::string, unsigned> Expected;
  /// Settled for this run: a header, or none to use.
  std::map<std::string, std::optional<PrecompiledHeader>> Settled;
  std::map<std::string, bool> Building;
};

} // namespace torchlint

#endif // TORCHLINT_TOOL_PRECOMPILEDPREFIX_H
