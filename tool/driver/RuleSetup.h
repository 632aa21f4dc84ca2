//===--- RuleSetup.h - Which rules run, configured how ----------*- C++ -*-===//
//
// The CLI and the language server enable rules and read their options the
// same way: a --checks glob appended to the default set, and the
// CheckOptions of a .clang-tidy file.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_DRIVER_RULESETUP_H
#define TORCHLINT_TOOL_DRIVER_RULESETUP_H

#include "driver/Configuration.h"
#include "output/Report.h"
#include "rules/Rule.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace torchlint {

/// The rules the glob Checks enables on top of the default set, in registry
/// order; an error names an invalid glob.
llvm::Expected<std::vector<const RuleInfo *>>
enabledRules(const std::string &Checks);

struct RuleSetup {
  std::vector<const RuleInfo *> Rules;
  MapOptions Options;
  /// The options as text, for cache keys: results depend on them.
  std::string OptionsKey;
  /// Option values the rules could not use, each said once.
  std::vector<AnalysisFailure> Problems;
};

/// Rules configured by the CheckOptions of ConfigFile (none when empty); an
/// error names a file that cannot be read or parsed.
llvm::Expected<RuleSetup> configureRules(std::vector<const RuleInfo *> Rules,
                                         const std::string &ConfigFile);

} // namespace torchlint

#endif // TORCHLINT_TOOL_DRIVER_RULESETUP_H
