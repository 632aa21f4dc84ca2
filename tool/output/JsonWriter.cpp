#include "output/Writers.h"

#include <nlohmann/json.hpp>

namespace torchlint {

void writeJson(const Report &R, llvm::raw_ostream &OS) {
  nlohmann::json Root;
  Root["tool"] = "torchlint";
  Root["version"] = torchlintVersion();
  Root["translationUnits"] = R.TranslationUnits;
  Root["rules"] = nlohmann::json::array();
  for (const RuleInfo *Info : R.Rules)
    Root["rules"].push_back(Info->Id);
  Root["findings"] = nlohmann::json::array();
  for (const Finding &F : R.Findings)
    Root["findings"].push_back(toJson(F));
  Root["failures"] = nlohmann::json::array();
  for (const AnalysisFailure &Failure : R.Failures)
    Root["failures"].push_back(
        {{"file", Failure.File},
         {"message", Failure.Message},
         {"analyzedInPart", Failure.AnalyzedInPart}});
  Root["warnings"] = nlohmann::json::array();
  for (const AnalysisFailure &Warning : R.Warnings)
    Root["warnings"].push_back(
        {{"file", Warning.File}, {"message", Warning.Message}});
  OS << Root.dump(2) << '\n';
}

void writeRuleList(const std::vector<const RuleInfo *> &Rules,
                   OutputFormat Format, llvm::raw_ostream &OS) {
  if (Format != OutputFormat::Json) {
    OS << "Enabled checks:\n";
    for (const RuleInfo *Info : Rules)
      OS << "    " << Info->Id
         << (Info->EnabledByDefault ? "" : " (off by default)") << '\n';
    OS << '\n';
    return;
  }
  nlohmann::json List = nlohmann::json::array();
  for (const RuleInfo *Info : Rules)
    List.push_back({{"id", Info->Id},
                    {"level", levelName(Info->DefaultLevel)},
                    {"enabledByDefault", Info->EnabledByDefault},
                    {"fixIts", Info->OffersFixIts},
                    {"summary", Info->Summary}});
  OS << List.dump(2) << '\n';
}

} // namespace torchlint
