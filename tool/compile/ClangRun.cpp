#include "compile/ClangRun.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/VirtualFileSystem.h"

namespace torchlint {

namespace {
/// What tooling's FrontendActionFactory does for one action, except that the
/// compiler is not destroyed with the run: an action that deferred the end of
/// its source file still needs it.
class OwningToolAction : public clang::tooling::ToolAction {
public:
  explicit OwningToolAction(std::unique_ptr<clang::FrontendAction> Action)
      : Action(std::move(Action)) {}

  bool
  runInvocation(std::shared_ptr<clang::CompilerInvocation> Invocation,
                clang::FileManager *Files,
                std::shared_ptr<clang::PCHContainerOperations> PCHContainerOps,
                clang::DiagnosticConsumer *DiagConsumer) override {
    Compiler =
        std::make_unique<clang::CompilerInstance>(std::move(PCHContainerOps));
    Compiler->setInvocation(std::move(Invocation));
    Compiler->setFileManager(Files);
    Compiler->createDiagnostics(DiagConsumer, /*ShouldOwnClient=*/false);
    if (!Compiler->hasDiagnostics())
      return false;
    Compiler->createSourceManager(*Files);
    bool Success = Compiler->ExecuteAction(*Action);
    Files->clearStatCache();
    return Success;
  }

  /// The compiler, if the action has not ended its source file.
  std::unique_ptr<KeptCompiler> keep() {
    if (!Compiler || Action->getCurrentFile().empty())
      return nullptr;
    return std::make_unique<KeptCompiler>(std::move(Action),
                                          std::move(Compiler));
  }

  /// Ends a source file the action left open.
  void end() {
    if (Compiler && Action && !Action->getCurrentFile().empty())
      Action->EndSourceFile();
  }

  /// After a crash the compiler's state cannot be trusted to be freed: it is
  /// leaked, as a crashed run's locals are.
  void abandon() {
    (void)Action.release();
    (void)Compiler.release();
  }

  ~OwningToolAction() override {
    Action.reset();
    Compiler.reset();
  }

private:
  std::unique_ptr<clang::FrontendAction> Action;
  std::unique_ptr<clang::CompilerInstance> Compiler;
};
} // namespace

KeptCompiler::KeptCompiler(std::unique_ptr<clang::FrontendAction> Action,
                           std::unique_ptr<clang::CompilerInstance> Compiler)
    : Compiler(std::move(Compiler)), Action(std::move(Action)) {}

KeptCompiler::~KeptCompiler() {
  llvm::CrashRecoveryContext Recovery;
  (void)Recovery.RunSafely([&] {
    Action->EndSourceFile();
    Action.reset();
    Compiler.reset();
  });
}

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
  OwningToolAction Owner(std::move(Action));
  clang::tooling::ToolInvocation Invocation(
      std::move(Arguments), &Owner, Run.Files.get(),
      std::make_shared<clang::PCHContainerOperations>());
  Invocation.setDiagnosticConsumer(&Diagnostics);
  llvm::CrashRecoveryContext Recovery;
  Run.Crashed = !Recovery.RunSafely([&] {
    Run.Succeeded = Invocation.run();
    if (Run.Succeeded)
      Run.Kept = Owner.keep();
    Owner.end();
  });
  if (Run.Crashed) {
    Run.Succeeded = false;
    Owner.abandon();
  }
  return Run;
}

} // namespace torchlint
