//===--- RuleCheck.h - One torchlint rule as a clang-tidy check -*- C++ -*-===//
//
// The plugin's whole adapter: a ClangTidyCheck that runs one shared rule and
// turns its findings back into clang diagnostics, with the same message,
// notes, level and fix-its as the torchlint CLI. The checks of one
// translation unit share one AnalysisContext, as the CLI's rules do, so the
// device flows are built once per unit, not once per check. No rule logic
// lives here.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_CLANG_TIDY_PLUGIN_RULECHECK_H
#define TORCHLINT_CLANG_TIDY_PLUGIN_RULECHECK_H

#include "rules/RuleRegistry.h"

#include "clang-tidy/ClangTidyCheck.h"

#include <memory>

namespace torchlint {

class RuleCheck : public clang::tidy::ClangTidyCheck {
public:
  RuleCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context,
            const RuleEntry &Entry);
  ~RuleCheck() override;

  bool
  isLanguageVersionSupported(const clang::LangOptions &Lang) const override {
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
  class UserCodeScope;
  class SharedUnit;

  /// clang-tidy creates the checks of a unit together, from one
  /// ClangTidyContext, and destroys them together after the unit: the first
  /// check of a unit creates what they share, the last one frees it.
  static std::shared_ptr<SharedUnit>
  sharedUnitOf(clang::tidy::ClangTidyContext *Context);
  void consume(Finding F);
  clang::SourceLocation locate(const std::string &File, unsigned Offset) const;

  const RuleEntry &Entry;
  clang::tidy::ClangTidyContext *TidyContext;
  const clang::SourceManager *SM = nullptr;
  std::unique_ptr<CheckOptions> Options;
  std::shared_ptr<SharedUnit> Unit;
  std::unique_ptr<Rule> Instance;
};

} // namespace torchlint

#endif // TORCHLINT_CLANG_TIDY_PLUGIN_RULECHECK_H
