//===--- RuleCheck.h - One torchlint rule as a clang-tidy check -*- C++ -*-===//
//
// The plugin's whole adapter: a ClangTidyCheck that runs one shared rule and
// turns its findings back into clang diagnostics, with the same message,
// notes, level and fix-its as the torchlint CLI. No rule logic lives here.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_CLANG_TIDY_PLUGIN_RULECHECK_H
#define TORCHLINT_CLANG_TIDY_PLUGIN_RULECHECK_H

#include "RuleRegistry.h"

#include "clang-tidy/ClangTidyCheck.h"

#include <memory>

namespace torchlint {

class RuleCheck : public clang::tidy::ClangTidyCheck, private FindingSink {
public:
  RuleCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context,
            const RuleEntry &Entry);
  ~RuleCheck() override;

  bool isLanguageVersionSupported(const clang::LangOptions &Lang) const override {
    return Lang.CPlusPlus;
  }
  void registerPPCallbacks(const clang::SourceManager &SM,
                           clang::Preprocessor *PP,
                           clang::Preprocessor *ModuleExpanderPP) override;
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  /// The rule registers itself with the finder; nothing reaches here.
  void check(const clang::ast_matchers::MatchFinder::MatchResult &) override {}
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;

private:
  class CheckOptions;

  void consume(Finding F) override;
  clang::SourceLocation locate(const std::string &File, unsigned Offset) const;

  const RuleEntry &Entry;
  const clang::SourceManager *SM = nullptr;
  UserCode Code;
  std::unique_ptr<CheckOptions> Options;
  std::unique_ptr<AnalysisContext> Analysis;
  std::unique_ptr<Rule> Instance;
};

} // namespace torchlint

#endif // TORCHLINT_CLANG_TIDY_PLUGIN_RULECHECK_H
