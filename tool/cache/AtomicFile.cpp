#include "cache/AtomicFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace torchlint {

std::string writeAtomically(const std::string &Path, llvm::StringRef Contents) {
  llvm::sys::fs::file_status Status;
  bool Exists = false;
  if (std::error_code EC = llvm::sys::fs::status(Path, Status)) {
    if (EC != std::errc::no_such_file_or_directory)
      return EC.message();
  } else {
    Exists = true;
  }
  llvm::SmallString<256> Model(Path);
  Model += ".torchlint-%%%%%%";
  int FD;
  llvm::SmallString<256> Temporary;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueFile(Model, FD, Temporary))
    return "cannot create a temporary file beside it: " + EC.message();
  {
    llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
    Out << Contents;
    Out.close();
    if (Out.has_error()) {
      std::string Message = Out.error().message();
      Out.clear_error();
      llvm::sys::fs::remove(Temporary);
      return "cannot write: " + Message;
    }
  }
  if (Exists)
    if (std::error_code EC =
            llvm::sys::fs::setPermissions(Temporary, Status.permissions())) {
      llvm::sys::fs::remove(Temporary);
      return "cannot keep its permissions: " + EC.message();
    }
  if (std::error_code EC = llvm::sys::fs::rename(Temporary, Path)) {
    llvm::sys::fs::remove(Temporary);
    return "cannot replace it: " + EC.message();
  }
  return "";
}

} // namespace torchlint
