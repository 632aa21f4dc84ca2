//===--- ClangRun.h - One frontend action over one command ------*- C++ -*-===//
//
// Analyzing a unit and precompiling its libtorch prefix both run a frontend
// action over a compile command, in the command's directory, on the real file
// system, with a crash of clang's (or of torchlint's) caught so that it costs
// that run only.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_CLANGRUN_H
#define TORCHLINT_TOOL_CLANGRUN_H

#include "clang/Basic/FileManager.h"
#include "clang/Frontend/FrontendAction.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"

#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace clang {
class DiagnosticConsumer;
} // namespace clang

namespace torchlint {

struct ClangRun {
  /// Why the command's directory could not be entered; then nothing ran.
  std::error_code DirectoryError;
  bool Crashed = false;
  /// The action ran to its end without clang giving up.
  bool Succeeded = false;
  /// Every file the run opened.
  llvm::IntrusiveRefCntPtr<clang::FileManager> Files;
};

ClangRun runClang(const std::string &Directory,
                  std::vector<std::string> Arguments,
                  std::unique_ptr<clang::FrontendAction> Action,
                  clang::DiagnosticConsumer &Diagnostics);

} // namespace torchlint

#endif // TORCHLINT_TOOL_CLANGRUN_H
