//===--- Configuration.h - Rule options for the CLI -------------*- C++ -*-===//
//
// The CLI reads rule options from the same place the clang-tidy plugin does:
// the CheckOptions of a .clang-tidy file, keyed "<rule-id>.<Option>". Both
// shells hand them to the rules through the RuleOptions interface, so a rule
// reads its options the same way whichever shell runs it.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_DRIVER_CONFIGURATION_H
#define TORCHLINT_TOOL_DRIVER_CONFIGURATION_H

#include "rules/Rule.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace torchlint {

class MapOptions : public RuleOptions {
public:
  MapOptions() = default;
  explicit MapOptions(std::map<std::string, std::string> Values)
      : Values(std::move(Values)) {}
  std::optional<std::string> get(llvm::StringRef Key) const override;

private:
  std::map<std::string, std::string> Values;
};

/// The CheckOptions of a .clang-tidy file, in either of clang-tidy's forms
/// (a mapping, or a list of {key, value}). Other settings are ignored.
llvm::Expected<std::map<std::string, std::string>>
parseCheckOptions(llvm::StringRef Yaml, const std::string &Path);
llvm::Expected<std::map<std::string, std::string>>
readCheckOptions(const std::string &Path);

/// The nearest .clang-tidy in Directory or above it; empty if none.
std::string findConfigFile(llvm::StringRef Directory);

} // namespace torchlint

#endif // TORCHLINT_TOOL_DRIVER_CONFIGURATION_H
