#include "ScenarioRegistry.h"
#include "common/Scenarios.h"

namespace torchlint::replay {

const std::vector<std::unique_ptr<Scenario>> &allScenarios() {
  static const std::vector<std::unique_ptr<Scenario>> Scenarios = [] {
    std::vector<std::unique_ptr<Scenario>> List;
    List.push_back(makeDeviceMismatchScenario());
    List.push_back(makeHardcodedCpuDeviceScenario());
    List.push_back(makePageableCopyScenario());
    List.push_back(makeCpuTensorThenMovedScenario());
    List.push_back(makeDataLoaderNoWorkersScenario());
    List.push_back(makeSyncInLoopScenario());
    List.push_back(makeEvalWithoutNoGradScenario());
    List.push_back(makeCudnnBenchmarkOffScenario());
    List.push_back(makeMissingMixedPrecisionScenario());
    List.push_back(makeFp16WithoutLossScalingScenario());
    List.push_back(makeAutocastStaleCacheScenario());
    List.push_back(makeHalfModelTrainingScenario());
    List.push_back(makeSetupInLoopScenario());
    List.push_back(makeUnsynchronizedTimingScenario());
    List.push_back(makeUnregisteredSubmoduleScenario());
    List.push_back(makeAnomalyDetectionEnabledScenario());
    List.push_back(makeLossKeepsGraphScenario());
    List.push_back(makeDataParallelNotCloneableScenario());
    List.push_back(makeDataParallelPerStepScenario());
    List.push_back(makeDiscardedResultScenario());
    List.push_back(makeLaunchBlockingInCodeScenario());
    List.push_back(makeCudnnDisabledScenario());
    List.push_back(makeModuleNeverMovedScenario());
    List.push_back(makeWidenBeforeCopyScenario());
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
  // Logs written before an id was renamed still name the scenario by its old
  // id; only the shared list knows both.
  std::optional<std::string_view> Current = scenario::currentId(Id);
  if (!Current)
    return nullptr;
  for (const std::unique_ptr<Scenario> &S : allScenarios())
    if (*Current == S->id())
      return S.get();
  return nullptr;
}

} // namespace torchlint::replay
