#include "Writers.h"

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
        {{"file", Failure.File}, {"message", Failure.Message}});
  Root["warnings"] = nlohmann::json::array();
  for (const AnalysisFailure &Warning : R.Warnings)
    Root["warnings"].push_back(
        {{"file", Warning.File}, {"message", Warning.Message}});
  OS << Root.dump(2) << '\n';
}

} // namespace torchlint
