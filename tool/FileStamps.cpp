#include "FileStamps.h"

#include "clang/Basic/FileManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <set>

namespace torchlint {

namespace {

struct Status {
  uint64_t Size;
  int64_t ModificationTime;
};

int64_t nanosecondsOf(const llvm::sys::fs::file_status &S) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             S.getLastModificationTime().time_since_epoch())
      .count();
}

std::optional<Status> statusOf(const std::string &Path) {
  llvm::sys::fs::file_status S;
  if (llvm::sys::fs::status(Path, S) ||
      S.type() != llvm::sys::fs::file_type::regular_file)
    return std::nullopt;
  return Status{S.getSize(), nanosecondsOf(S)};
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
  std::optional<Status> S = statusOf(Path);
  std::optional<uint64_t> Digest = fileDigest(Path);
  if (!S || !Digest)
    return std::nullopt;
  return FileStamp{Path, S->Size, S->ModificationTime, *Digest};
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
  if (Stamp.Absent)
    return !llvm::sys::fs::exists(Stamp.Path);
  std::optional<Status> S = statusOf(Stamp.Path);
  if (!S || S->Size != Stamp.Size)
    return false;
  if (S->ModificationTime == Stamp.ModificationTime)
    return true;
  return fileDigest(Stamp.Path) == Stamp.Digest;
}

bool sameSizeAndTime(const std::vector<FileStamp> &Stamps) {
  for (const FileStamp &Stamp : Stamps) {
    if (Stamp.Absent) {
      if (llvm::sys::fs::exists(Stamp.Path))
        return false;
      continue;
    }
    std::optional<Status> S = statusOf(Stamp.Path);
    if (!S || S->Size != Stamp.Size ||
        S->ModificationTime != Stamp.ModificationTime)
      return false;
  }
  return true;
}

bool unchanged(const std::vector<FileStamp> &Stamps) {
  for (const FileStamp &Stamp : Stamps)
    if (!unchanged(Stamp))
      return false;
  return true;
}

FilesAsFirstSeen::Look &FilesAsFirstSeen::lookAt(const std::string &Path) {
  auto [It, New] = Looks.try_emplace(Path);
  llvm::sys::fs::file_status S;
  if (New && !llvm::sys::fs::status(Path, S) && llvm::sys::fs::exists(S)) {
    It->second.Exists = true;
    if (S.type() == llvm::sys::fs::file_type::regular_file)
      It->second.Status = {S.getSize(), nanosecondsOf(S)};
  }
  return It->second;
}

bool FilesAsFirstSeen::unchanged(const std::vector<FileStamp> &Stamps) {
  // One lock for the whole list: after the first entry nearly every file is
  // known, and a miss costs one stat.
  std::lock_guard<std::mutex> Lock(Mutex);
  for (const FileStamp &Stamp : Stamps) {
    Look &L = lookAt(Stamp.Path);
    if (Stamp.Absent) {
      if (L.Exists)
        return false;
      continue;
    }
    if (!L.Status || L.Status->first != Stamp.Size)
      return false;
    if (L.Status->second == Stamp.ModificationTime)
      continue;
    if (!L.Digest)
      L.Digest = fileDigest(Stamp.Path);
    if (*L.Digest != Stamp.Digest)
      return false;
  }
  return true;
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
