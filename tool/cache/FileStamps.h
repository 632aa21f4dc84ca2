//===--- FileStamps.h - What a cached artefact was made from ----*- C++ -*-===//
//
// A cached result or precompiled header is reused only while every file it
// was made from is as it was: same size and modification time, or, where only
// the time moved (a checkout, a touch), the same contents.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_CACHE_FILESTAMPS_H
#define TORCHLINT_TOOL_CACHE_FILESTAMPS_H

#include "llvm/ADT/StringMap.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class FileManager;
} // namespace clang

namespace torchlint {

struct FileStamp {
  std::string Path;
  uint64_t Size = 0;
  int64_t ModificationTime = 0; ///< nanoseconds since the epoch
  uint64_t Digest = 0;          ///< xxh3 of the contents
  /// The path did not exist: a header searched for and not found there,
  /// whose appearance changes what the parse would find.
  bool Absent = false;
};

/// A place where no file is, as it was seen.
FileStamp absentFile(const std::string &Path);

/// The file as it is now; none when it cannot be read.
std::optional<FileStamp> stampFile(const std::string &Path);

/// Every file Files has opened, stamped; none when one can no longer be read.
std::optional<std::vector<FileStamp>> stampsOf(const clang::FileManager &Files);

/// The absolute paths of every file Files opened, sorted.
std::vector<std::string> filesOpened(const clang::FileManager &Files);

/// xxh3 of the file's bytes; none when it cannot be read.
std::optional<uint64_t> fileDigest(const std::string &Path);

/// The file is still as Stamp saw it.
bool unchanged(const FileStamp &Stamp);
bool unchanged(const std::vector<FileStamp> &Stamps);
/// Every file has the size and time its stamp saw, contents unread: for
/// inputs that clang itself validates by size and time.
bool sameSizeAndTime(const std::vector<FileStamp> &Stamps);

/// What one look at a path saw.
struct FileLook {
  bool Exists = false;
  /// A regular file's size and modification time (nanoseconds).
  std::optional<std::pair<uint64_t, int64_t>> SizeAndTime;
  /// Its contents' xxh3, once read; none inside when it could not be read.
  std::optional<std::optional<uint64_t>> Digest;
};

/// Files as one run first saw them. A run reads many cache entries that list
/// the same headers (every unit includes libtorch); each file is looked at
/// once. A file that changes while the run reads it gets no consistent answer
/// either way, as a parse reads each file once; the next run looks again.
/// Safe to share between threads.
class FilesAsFirstSeen {
public:
  bool unchanged(const std::vector<FileStamp> &Stamps);

private:
  std::mutex Mutex;
  llvm::StringMap<FileLook> Looks;
};

nlohmann::json toJson(const std::vector<FileStamp> &Stamps);
/// Throws nlohmann::json::exception on a malformed list.
std::vector<FileStamp> stampsFromJson(const nlohmann::json &List);

} // namespace torchlint

#endif // TORCHLINT_TOOL_CACHE_FILESTAMPS_H
