#include "ClangRun.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/VirtualFileSystem.h"

namespace torchlint {

ClangRun runClang(const std::string &Directory,
                  std::vector<std::string> Arguments,
                  std::unique_ptr<clang::FrontendAction> Action,
                  clang::DiagnosticConsumer &Diagnostics) {
  ClangRun Run;
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS =
      llvm::vfs::createPhysicalFileSystem();
  if ((Run.DirectoryError = FS->setCurrentWorkingDirectory(Directory)))
    return Run;
  Run.Files = new clang::FileManager(clang::FileSystemOptions(), FS);
  clang::tooling::ToolInvocation Invocation(std::move(Arguments),
                                            std::move(Action), Run.Files.get());
  Invocation.setDiagnosticConsumer(&Diagnostics);
  llvm::CrashRecoveryContext Recovery;
  Run.Crashed = !Recovery.RunSafely([&] { Run.Succeeded = Invocation.run(); });
  if (Run.Crashed)
    Run.Succeeded = false;
  return Run;
}

} // namespace torchlint
