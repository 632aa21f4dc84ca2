//===--- CacheDirectory.h - Where the cache keeps its files -----*- C++ -*-===//
//
// Results and precompiled headers live under one directory the user chooses
// (--cache-dir). Every file is written atomically, so concurrent runs may
// share it; each entry is named by a key over everything that could change
// it; a run ends by trimming the directory to its size bound, least recently
// used entries first. An entry that cannot be read is ignored with a warning,
// never trusted.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_CACHE_CACHEDIRECTORY_H
#define TORCHLINT_TOOL_CACHE_CACHEDIRECTORY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace torchlint {

class CacheDirectory {
public:
  CacheDirectory(std::string Root, uint64_t MaxBytes)
      : Root(std::move(Root)), MaxBytes(MaxBytes) {}

  const std::string &root() const { return Root; }

  /// A name that changes whenever any piece of Material does.
  static std::string keyOf(llvm::ArrayRef<std::string> Material);

  /// Where the entry Key of a Kind ("results", "pch") keeps the file with
  /// Suffix. Its directory is created.
  std::string pathFor(llvm::StringRef Kind, llvm::StringRef Key,
                      llvm::StringRef Suffix) const;

  /// The JSON entry at Path, marked as just used. None when there is none;
  /// then Problem says why if one was there but could not be read.
  std::optional<nlohmann::json> read(const std::string &Path,
                                     std::string &Problem) const;
  /// An empty string on success; otherwise why it could not be written.
  std::string write(const std::string &Path, const nlohmann::json &Entry) const;

  /// Removes the least recently used entries until the directory holds at
  /// most the size bound.
  void trim() const;

private:
  std::string Root;
  uint64_t MaxBytes;
};

} // namespace torchlint

#endif // TORCHLINT_TOOL_CACHE_CACHEDIRECTORY_H
