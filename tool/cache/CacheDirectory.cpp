#include "cache/CacheDirectory.h"

#include "cache/AtomicFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <vector>

#include <utime.h>

namespace torchlint {

std::string CacheDirectory::keyOf(llvm::ArrayRef<std::string> Material) {
  std::string Joined;
  for (const std::string &Piece : Material) {
    // Lengths first, so that no two lists join into the same text.
    Joined += std::to_string(Piece.size());
    Joined += ':';
    Joined += Piece;
  }
  llvm::XXH128_hash_t Hash = llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(Joined.data()), Joined.size()));
  char Hex[33];
  snprintf(Hex, sizeof Hex, "%016llx%016llx",
           static_cast<unsigned long long>(Hash.high64),
           static_cast<unsigned long long>(Hash.low64));
  return Hex;
}

std::string CacheDirectory::pathFor(llvm::StringRef Kind, llvm::StringRef Key,
                                    llvm::StringRef Suffix) const {
  llvm::SmallString<256> Path(Root);
  llvm::sys::path::append(Path, Kind, Key.take_front(2));
  llvm::sys::fs::create_directories(Path);
  llvm::sys::path::append(Path, Key + Suffix);
  return std::string(Path);
}

std::optional<nlohmann::json> CacheDirectory::read(const std::string &Path,
                                                   std::string &Problem) const {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  if (!Buffer) {
    if (Buffer.getError() != std::errc::no_such_file_or_directory)
      Problem = "cannot read the cache entry " + Path + ": " +
                Buffer.getError().message();
    return std::nullopt;
  }
  nlohmann::json Entry = nlohmann::json::parse((*Buffer)->getBuffer(),
                                               nullptr, /*allow_exceptions=*/
                                               false);
  if (!Entry.is_object()) {
    Problem = "ignored the corrupt cache entry " + Path;
    return std::nullopt;
  }
  ::utime(Path.c_str(), nullptr); // now: trim() keeps it longer
  return Entry;
}

std::string CacheDirectory::write(const std::string &Path,
                                  const nlohmann::json &Entry) const {
  return writeAtomically(Path, Entry.dump());
}

void CacheDirectory::trim() const {
  // An entry's files share the name before the first dot: they go together.
  struct Group {
    uint64_t Bytes = 0;
    llvm::sys::TimePoint<> LastUsed;
    std::vector<std::string> Files;
  };
  std::map<std::string, Group> Groups;
  uint64_t Total = 0;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Root, EC), End;
       It != End && !EC; It.increment(EC)) {
    llvm::sys::fs::file_status Status;
    if (llvm::sys::fs::status(It->path(), Status) ||
        Status.type() != llvm::sys::fs::file_type::regular_file)
      continue;
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    // A temporary file an hour old belongs to a writer that is gone (a
    // language server that exited while clang wrote a precompiled header).
    if (Name.ends_with(".tmp") &&
        std::chrono::system_clock::now() - Status.getLastModificationTime() >
            std::chrono::hours(1)) {
      llvm::sys::fs::remove(It->path());
      continue;
    }
    std::string Stem =
        (llvm::sys::path::parent_path(It->path()) + "/" + Name.split('.').first)
            .str();
    Group &G = Groups[Stem];
    G.Bytes += Status.getSize();
    G.LastUsed = std::max(G.LastUsed, Status.getLastModificationTime());
    G.Files.push_back(It->path());
    Total += Status.getSize();
  }
  if (Total <= MaxBytes)
    return;
  std::vector<const Group *> Order;
  for (const auto &[Stem, G] : Groups)
    Order.push_back(&G);
  std::sort(Order.begin(), Order.end(), [](const Group *A, const Group *B) {
    return A->LastUsed < B->LastUsed;
  });
  for (const Group *G : Order) {
    if (Total <= MaxBytes)
      break;
    for (const std::string &File : G->Files)
      llvm::sys::fs::remove(File);
    Total -= G->Bytes;
  }
}

} // namespace torchlint
