//===--- ScenarioRegistry.h - Every scenario, in one list -------*- C++ -*-===//

#ifndef TORCHLINT_RUNTIME_SCENARIOREGISTRY_H
#define TORCHLINT_RUNTIME_SCENARIOREGISTRY_H

#include "Scenario.h"

#include <memory>
#include <vector>

namespace torchlint::replay {

std::unique_ptr<Scenario> makeDeviceMismatchScenario();
std::unique_ptr<Scenario> makeCpuVsGpuScenario();
std::unique_ptr<Scenario> makePinnedCopyScenario();
std::unique_ptr<Scenario> makeCreateOnDeviceScenario();
std::unique_ptr<Scenario> makeDataLoaderWorkersScenario();
std::unique_ptr<Scenario> makeSyncInLoopScenario();
std::unique_ptr<Scenario> makeEvalWithoutNoGradScenario();
std::unique_ptr<Scenario> makeCudnnBenchmarkScenario();
std::unique_ptr<Scenario> makeMixedPrecisionScenario();
std::unique_ptr<Scenario> makeLossScalingScenario();
std::unique_ptr<Scenario> makeStaleAutocastCacheScenario();
std::unique_ptr<Scenario> makeHalfMasterWeightsScenario();

/// All scenarios, in a fixed order.
const std::vector<std::unique_ptr<Scenario>> &allScenarios();

/// The scenario a recipe names, or null.
const Scenario *findScenario(const std::string &Id);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_SCENARIOREGISTRY_H
