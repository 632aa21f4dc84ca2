#include "driver/RuleSetup.h"
#include "common/CheckGlob.h"
#include "rules/RuleRegistry.h"

namespace torchlint {

llvm::Expected<std::vector<const RuleInfo *>>
enabledRules(const std::string &Checks) {
  CheckGlob Glob(defaultChecks() + "," + Checks);
  if (!Glob.invalid().empty())
    return llvm::createStringError(std::errc::invalid_argument,
                                   "invalid glob '%s' in --checks",
                                   Glob.invalid().front().c_str());
  std::vector<const RuleInfo *> Rules;
  for (const RuleEntry &Entry : allRules())
    if (Glob.contains(Entry.Info.Id))
      Rules.push_back(&Entry.Info);
  return Rules;
}

llvm::Expected<RuleSetup> configureRules(std::vector<const RuleInfo *> Rules,
                                         const std::string &ConfigFile) {
  RuleSetup Setup;
  Setup.Rules = std::move(Rules);
  if (!ConfigFile.empty()) {
    llvm::Expected<std::map<std::string, std::string>> Values =
        readCheckOptions(ConfigFile);
    if (!Values)
      return Values.takeError();
    for (const auto &[Key, Value] : *Values)
      Setup.OptionsKey += Key + '=' + Value + '\n';
    Setup.Options = MapOptions(std::move(*Values));
  }
  // Rules read their options once, when they are made; a bad value is said
  // once per run, here, not once per unit.
  for (const RuleInfo *Info : Setup.Rules)
    for (const RuleOptionInfo &Option : Info->Options) {
      std::string Problem;
      readOption(*Info, Option, &Setup.Options, &Problem);
      if (!Problem.empty())
        Setup.Problems.push_back({ConfigFile, std::move(Problem)});
    }
  return Setup;
}

} // namespace torchlint
