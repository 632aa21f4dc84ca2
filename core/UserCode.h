//===--- UserCode.h - Which files are the user's own ------------*- C++ -*-===//
//
// torchlint analyzes and reports the user's code only. A file is never the
// user's when it is a system header (reached through -isystem or the
// toolchain's own include paths) or part of a libtorch installation, even one
// that the build includes with a plain -I. Of the user's files, the main file
// is always reported; headers are reported when they match the header filter.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_CORE_USERCODE_H
#define TORCHLINT_CORE_USERCODE_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include <memory>
#include <string>

namespace clang {
class SourceManager;
} // namespace clang

namespace torchlint {

/// True when Path lies inside a libtorch installation (headers of torch, ATen,
/// c10, caffe2, whether from Debian, a pip wheel or a pytorch.org download).
bool isLibtorchPath(llvm::StringRef Path);

class UserCode {
public:
  /// HeaderFilter: an extended regex matched against a header's absolute
  /// path; empty means every user header is reported. ResolveSymlinks:
  /// name files by their real paths; off, by the paths the compiler opened
  /// them through (in a build system's sandbox, every input is a link to a
  /// file outside it).
  explicit UserCode(llvm::StringRef HeaderFilter = "",
                    bool ResolveSymlinks = true);

  /// The location is in a file the analyses may look into.
  bool isAnalyzed(clang::SourceLocation Loc,
                  const clang::SourceManager &SM) const;
  /// The location is in a file whose findings are reported.
  bool isReported(clang::SourceLocation Loc,
                  const clang::SourceManager &SM) const;

  /// The absolute, normalised path of the file holding Loc (after macro
  /// expansion), symbolic links resolved unless asked otherwise; empty for
  /// locations outside any file.
  std::string filePath(clang::SourceLocation Loc,
                       const clang::SourceManager &SM) const;

private:
  struct FileVerdict {
    bool Analyzed = false;
    bool Reported = false;
    std::string Path;
  };
  const FileVerdict &verdict(clang::SourceLocation Loc,
                             const clang::SourceManager &SM) const;

  std::unique_ptr<llvm::Regex> HeaderFilter;
  bool ResolveSymlinks = true;
  mutable const clang::SourceManager *CachedFor = nullptr;
  mutable llvm::DenseMap<unsigned, FileVerdict> Cache;
  FileVerdict None;
};

} // namespace torchlint

#endif // TORCHLINT_CORE_USERCODE_H
