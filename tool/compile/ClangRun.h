//===--- ClangRun.h - One frontend action over one command ------*- C++ -*-===//
//
// Analyzing a unit and precompiling its libtorch prefix both run a frontend
// action over a compile command, in the command's directory, on the real file
// system, with a crash of clang's (or of torchlint's) caught so that it costs
// that run only. An action may keep its AST past the run: it defers the end
// of its source file, and the run hands back the compiler with it.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_COMPILE_CLANGRUN_H
#define TORCHLINT_TOOL_COMPILE_CLANGRUN_H

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

/// A compiler whose action has not ended its source file: the AST, the
/// preprocessor and the action's consumer are alive. Destroying it ends the
/// source file (inside crash recovery) and frees them.
class KeptCompiler {
public:
  KeptCompiler(std::unique_ptr<clang::FrontendAction> Action,
               std::unique_ptr<clang::CompilerInstance> Compiler);
  ~KeptCompiler();
  KeptCompiler(const KeptCompiler &) = delete;
  KeptCompiler &operator=(const KeptCompiler &) = delete;

  clang::CompilerInstance &compiler() { return *Compiler; }

private:
  // The action may need the compiler until it is gone: declared after it,
  // destroyed before it.
  std::unique_ptr<clang::CompilerInstance> Compiler;
  std::unique_ptr<clang::FrontendAction> Action;
};

struct ClangRun {
  /// Why the command's directory could not be entered; then nothing ran.
  std::error_code DirectoryError;
  bool Crashed = false;
  /// The action ran to its end without clang giving up.
  bool Succeeded = false;
  /// Every file the run opened.
  llvm::IntrusiveRefCntPtr<clang::FileManager> Files;
  /// Set when the action deferred the end of its source file (see
  /// FrontendAction::EndSourceFile): the compiler, kept for the caller.
  std::unique_ptr<KeptCompiler> Kept;
};

ClangRun runClang(const std::string &Directory,
                  std::vector<std::string> Arguments,
                  std::unique_ptr<clang::FrontendAction> Action,
                  clang::DiagnosticConsumer &Diagnostics);

} // namespace torchlint

#endif // TORCHLINT_TOOL_COMPILE_CLANGRUN_H
