#include "cache/FileStamps.h"

#include "clang/Basic/FileManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <set>

namespace torchlint {

namespace {

FileLook lookAt(const std::string &Path) {
  FileLook Look;
  llvm::sys::fs::file_status S;
  if (llvm::sys::fs::status(Path, S) || !llvm::sys::fs::exists(S))
    return Look;
  Look.Exists = true;
  if (S.type() == llvm::sys::fs::file_type::regular_file)
    Look.SizeAndTime = {S.getSize(),
                        std::chrono::duration_cast<std::chrono::nanoseconds>(
                            S.getLastModificationTime().time_since_epoch())
                            .count()};
  return Look;
}

/// Whether Stamp still describes the file as Look saw it. A file whose time
/// alone moved is compared by its contents when ReadContents (read once into
/// Look), and counts as changed otherwise.
bool stillAsStamped(const FileStamp &Stamp, FileLook &Look, bool ReadContents) {
  if (Stamp.Absent)
    return !Look.Exists;
  if (!Look.SizeAndTime || Look.SizeAndTime->first != Stamp.Size)
    return false;
  if (Look.SizeAndTime->second == Stamp.ModificationTime)
    return true;
  if (!ReadContents)
    return false;
  if (!Look.Digest)
    Look.Digest = fileDigest(Stamp.Path);
  return *Look.Digest == Stamp.Digest;
}

} // namespace

std::optional<uint64_t> fileDigest(const std::string &Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return std::nullopt;
  return llvm::xxh3_64bits((*Buffer)->getBuffer());
}

std::optional<FileStamp> stampFile(const std::string &Path) {
  std::optional<std::pair<uint64_t, int64_t>> S = lookAt(Path).SizeAndTime;
  std::optional<uint64_t> Digest = fileDigest(Path);
  if (!S || !Digest)
    return std::nullopt;
  return FileStamp{Path, S->first, S->second, *Digest};
}

FileStamp absentFile(const std::string &Path) {
  FileStamp Stamp;
  Stamp.Path = Path;
  Stamp.Absent = true;
  return Stamp;
}

std::optional<std::vector<FileStamp>>
stampsOf(const clang::FileManager &Files) {
  std::vector<FileStamp> Stamps;
  for (const std::string &Path : filesOpened(Files)) {
    std::optional<FileStamp> Stamp = stampFile(Path);
    if (!Stamp)
      return std::nullopt;
    Stamps.push_back(std::move(*Stamp));
  }
  return Stamps;
}

std::vector<std::string> filesOpened(const clang::FileManager &Files) {
  llvm::SmallVector<clang::OptionalFileEntryRef, 0> Known;
  Files.GetUniqueIDMapping(Known);
  std::set<std::string> Paths;
  for (clang::OptionalFileEntryRef Entry : Known)
    if (Entry) {
      llvm::SmallString<256> Path(Entry->getName());
      Files.makeAbsolutePath(Path);
      Paths.insert(std::string(Path));
    }
  return {Paths.begin(), Paths.end()};
}

bool unchanged(const FileStamp &Stamp) {
  FileLook Look = lookAt(Stamp.Path);
  return stillAsStamped(Stamp, Look, /*ReadContents=*/true);
}

bool sameSizeAndTime(const std::vector<FileStamp> &Stamps) {
  return llvm::all_of(Stamps, [](const FileStamp &Stamp) {
    FileLook Look = lookAt(Stamp.Path);
    return stillAsStamped(Stamp, Look, /*ReadContents=*/false);
  });
}

bool unchanged(const std::vector<FileStamp> &Stamps) {
  for (const FileStamp &Stamp : Stamps)
    if (!unchanged(Stamp))
      return false;
  return true;
}

bool FilesAsFirstSeen::unchanged(const std::vector<FileStamp> &Stamps) {
  // One lock for the whole list: after the first entry nearly every file is
  // known, and a miss costs one stat.
  std::lock_guard<std::mutex> Lock(Mutex);
  return llvm::all_of(Stamps, [&](const FileStamp &Stamp) {
    auto [It, New] = Looks.try_emplace(Stamp.Path);
    if (New)
      It->second = lookAt(Stamp.Path);
    return stillAsStamped(Stamp, It->second, /*ReadContents=*/true);
  });
}

nlohmann::json toJson(const std::vector<FileStamp> &Stamps) {
  nlohmann::json List = nlohmann::json::array();
  // An absent file is its path alone.
  for (const FileStamp &S : Stamps)
    List.push_back(S.Absent ? nlohmann::json::array({S.Path})
                            : nlohmann::json::array({S.Path, S.Size,
                                                     S.ModificationTime,
                                                     S.Digest}));
  return List;
}

std::vector<FileStamp> stampsFromJson(const nlohmann::json &List) {
  std::vector<FileStamp> Stamps;
  for (const nlohmann::json &Item :
       List.get_ref<const nlohmann::json::array_t &>())
    Stamps.push_back(
        Item.size() == 1
            ? absentFile(Item.at(0).get<std::string>())
            : FileStamp{Item.at(0).get<std::string>(),
                        Item.at(1).get<uint64_t>(), Item.at(2).get<int64_t>(),
                        Item.at(3).get<uint64_t>()});
  return Stamps;
}

} // namespace torchlint
