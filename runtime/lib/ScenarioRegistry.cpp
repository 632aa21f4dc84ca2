#include "ScenarioRegistry.h"

namespace torchlint::replay {

const std::vector<std::unique_ptr<Scenario>> &allScenarios() {
  static const std::vector<std::unique_ptr<Scenario>> Scenarios = [] {
    std::vector<std::unique_ptr<Scenario>> List;
    List.push_back(makeDeviceMismatchScenario());
    List.push_back(makeCpuVsGpuScenario());
    List.push_back(makePinnedCopyScenario());
    List.push_back(makeCreateOnDeviceScenario());
    List.push_back(makeDataLoaderWorkersScenario());
    List.push_back(makeSyncInLoopScenario());
    List.push_back(makeEvalWithoutNoGradScenario());
    List.push_back(makeCudnnBenchmarkScenario());
    List.push_back(makeMixedPrecisionScenario());
    List.push_back(makeLossScalingScenario());
    List.push_back(makeStaleAutocastCacheScenario());
    List.push_back(makeHalfMasterWeightsScenario());
    return List;
  }();
  return Scenarios;
}

std::string recipeString(const nlohmann::json &Recipe, const char *Key,
                         const std::string &Default) {
  if (Recipe.is_object() && Recipe.contains(Key) && Recipe[Key].is_string())
    return Recipe[Key].get<std::string>();
  return Default;
}

int64_t recipeInt(const nlohmann::json &Recipe, const char *Key,
                  int64_t Default) {
  if (Recipe.is_object() && Recipe.contains(Key) &&
      Recipe[Key].is_number_integer())
    return Recipe[Key].get<int64_t>();
  return Default;
}

bool recipeBool(const nlohmann::json &Recipe, const char *Key, bool Default) {
  if (Recipe.is_object() && Recipe.contains(Key) && Recipe[Key].is_boolean())
    return Recipe[Key].get<bool>();
  return Default;
}

const Scenario *findScenario(const std::string &Id) {
  for (const std::unique_ptr<Scenario> &S : allScenarios())
    if (Id == S->id())
      return S.get();
  return nullptr;
}

} // namespace torchlint::replay
