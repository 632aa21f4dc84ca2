//===--- TorchTidyModule.cpp - The "torch" clang-tidy module --------------===//
//
// Loaded by stock clang-tidy-19: `clang-tidy-19 --load=<this library>
// -checks='-*,torch-*'`. Every rule of the registry becomes a check under its
// own id.
//
//===----------------------------------------------------------------------===//

#include "RuleCheck.h"

#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace torchlint {
namespace {

class TorchModule : public clang::tidy::ClangTidyModule {
public:
  void addCheckFactories(
      clang::tidy::ClangTidyCheckFactories &Factories) override {
    for (const RuleEntry &Entry : allRules())
      Factories.registerCheckFactory(
          Entry.Info.Id,
          [&Entry](llvm::StringRef Name, clang::tidy::ClangTidyContext *Context)
              -> std::unique_ptr<clang::tidy::ClangTidyCheck> {
            return std::make_unique<RuleCheck>(Name, Context, Entry);
          });
  }
};

clang::tidy::ClangTidyModuleRegistry::Add<TorchModule>
    Registration("torch-module",
                 "torchlint: libtorch programs that run on the CPU or starve "
                 "their GPU without saying so.");

} // namespace
} // namespace torchlint
