#include "core/UserCode.h"

#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace torchlint {

bool isLibtorchPath(llvm::StringRef Path) {
  // Debian: /usr/include/{torch,ATen,c10,caffe2}/...; pip wheels and the
  // pytorch.org archives: <prefix>/include/{torch,ATen,c10,caffe2}/...; the
  // C++ API itself always sits under torch/csrc/api/include.
  static const char *const Markers[] = {
      "/torch/csrc/",  "/include/torch/",  "/include/ATen/",
      "/include/c10/", "/include/caffe2/", "/include/TH/",
  };
  for (const char *Marker : Markers)
    if (Path.contains(Marker))
      return true;
  return false;
}

UserCode::UserCode(llvm::StringRef Filter, bool ResolveSymlinks)
    : ResolveSymlinks(ResolveSymlinks) {
  if (!Filter.empty())
    HeaderFilter = std::make_unique<llvm::Regex>(Filter);
}

const UserCode::FileVerdict &UserCode::verdict(SourceLocation Loc,
                                               const SourceManager &SM) const {
  if (Loc.isInvalid())
    return None;
  if (CachedFor != &SM) {
    Cache.clear();
    CachedFor = &SM;
  }
  SourceLocation FileLoc = SM.getFileLoc(Loc);
  FileID FID = SM.getFileID(FileLoc);
  auto [It, Inserted] = Cache.try_emplace(FID.getHashValue());
  FileVerdict &V = It->second;
  if (!Inserted)
    return V;

  OptionalFileEntryRef Entry = SM.getFileEntryRefForID(FID);
  if (!Entry)
    return V; // <built-in>, <command line>, scratch space: never the user's.
  llvm::StringRef Canonical =
      ResolveSymlinks ? SM.getFileManager().getCanonicalName(*Entry) : "";
  llvm::SmallString<256> Path(Canonical.empty() ? Entry->getName() : Canonical);
  SM.getFileManager().makeAbsolutePath(Path);
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  V.Path = std::string(Path);

  if (SM.isInSystemHeader(FileLoc) || isLibtorchPath(V.Path))
    return V;
  V.Analyzed = true;
  V.Reported =
      SM.isInMainFile(FileLoc) || !HeaderFilter || HeaderFilter->match(V.Path);
  return V;
}

bool UserCode::isAnalyzed(SourceLocation Loc, const SourceManager &SM) const {
  return verdict(Loc, SM).Analyzed;
}

bool UserCode::isReported(SourceLocation Loc, const SourceManager &SM) const {
  return verdict(Loc, SM).Reported;
}

std::string UserCode::filePath(SourceLocation Loc,
                               const SourceManager &SM) const {
  return verdict(Loc, SM).Path;
}

} // namespace torchlint
