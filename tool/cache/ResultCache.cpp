#include "cache/ResultCache.h"

#include "output/Writers.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"

namespace torchlint {

std::optional<CachedResult> ResultCache::lookup(const std::string &Key,
                                                std::string &Problem) const {
  std::string Path = Cache.pathFor("results", Key, ".json");
  std::optional<nlohmann::json> Entry = Cache.read(Path, Problem);
  if (!Entry)
    return std::nullopt;
  try {
    std::vector<FileStamp> Inputs = stampsFromJson(Entry->at("inputs"));
    if (!(Seen ? Seen->unchanged(Inputs) : unchanged(Inputs)))
      return std::nullopt;
    CachedResult Result;
    for (FileStamp &Stamp : Inputs)
      Result.Inputs.push_back(std::move(Stamp.Path));
    if (Entry->contains("failure"))
      Result.Failure = Entry->at("failure").get<std::string>();
    if (Entry->contains("compileError"))
      Result.CompileError = Entry->at("compileError").get<std::string>();
    for (const nlohmann::json &F :
         Entry->at("findings").get_ref<const nlohmann::json::array_t &>())
      Result.Findings.push_back(findingFromJson(F));
    for (const auto &[File, Digest] : Entry->at("digests").items())
      Result.Digests[File] = Digest.get<uint64_t>();
    Result.Notices = Entry->at("notices").get<std::vector<std::string>>();
    Result.Summary = unitSummaryFromJson(Entry->at("summary"));
    return Result;
  } catch (const nlohmann::json::exception &) {
    Problem = "ignored the corrupt cache entry " + Path;
    llvm::sys::fs::remove(Path);
    return std::nullopt;
  }
}

void ResultCache::store(const std::string &Key, const CachedResult &Result,
                        const std::vector<FileStamp> &Inputs) const {
  // A unit's files and its precompiled header's overlap: each is listed once.
  std::vector<FileStamp> Distinct;
  llvm::StringSet<> Listed;
  for (const FileStamp &Stamp : Inputs)
    if (Listed.insert(Stamp.Path).second)
      Distinct.push_back(Stamp);
  nlohmann::json Entry = {{"inputs", toJson(Distinct)},
                          {"findings", nlohmann::json::array()},
                          {"digests", Result.Digests},
                          {"notices", Result.Notices},
                          {"summary", toJson(Result.Summary)}};
  for (const Finding &F : Result.Findings)
    Entry["findings"].push_back(toJson(F));
  if (Result.Failure)
    Entry["failure"] = *Result.Failure;
  if (Result.CompileError)
    Entry["compileError"] = *Result.CompileError;
  // A cache that cannot be written only costs time.
  (void)Cache.write(Cache.pathFor("results", Key, ".json"), Entry);
}

std::string toolIdentity() {
  std::string Identity =
      std::string(torchlintVersion()) + " clang " + LLVM_VERSION_STRING;
  std::string Exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&toolIdentity));
  llvm::sys::fs::file_status Status;
  if (!Exe.empty() && !llvm::sys::fs::status(Exe, Status))
    Identity +=
        " " + Exe + " " + std::to_string(Status.getSize()) + " " +
        std::to_string(
            Status.getLastModificationTime().time_since_epoch().count());
  return Identity;
}

} // namespace torchlint
