//===--- ScenarioRegistry.h - Every scenario, in one list -------*- C++ -*-===//

#ifndef TORCHLINT_RUNTIME_SCENARIOREGISTRY_H
#define TORCHLINT_RUNTIME_SCENARIOREGISTRY_H

#include "Scenario.h"

#include <memory>
#include <vector>

namespace torchlint::replay {

std::unique_ptr<Scenario> makeDeviceMismatchScenario();
std::unique_ptr<Scenario> makeHardcodedCpuDeviceScenario();
std::unique_ptr<Scenario> makePageableCopyScenario();
std::unique_ptr<Scenario> makeCpuTensorThenMovedScenario();
std::unique_ptr<Scenario> makeDataLoaderNoWorkersScenario();
std::unique_ptr<Scenario> makeSyncInLoopScenario();
std::unique_ptr<Scenario> makeEvalWithoutNoGradScenario();
std::unique_ptr<Scenario> makeCudnnBenchmarkOffScenario();
std::unique_ptr<Scenario> makeMissingMixedPrecisionScenario();
std::unique_ptr<Scenario> makeFp16WithoutLossScalingScenario();
std::unique_ptr<Scenario> makeAutocastStaleCacheScenario();
std::unique_ptr<Scenario> makeHalfModelTrainingScenario();
std::unique_ptr<Scenario> makeSetupInLoopScenario();
std::unique_ptr<Scenario> makeUnsynchronizedTimingScenario();
std::unique_ptr<Scenario> makeUnregisteredSubmoduleScenario();
std::unique_ptr<Scenario> makeAnomalyDetectionEnabledScenario();
std::unique_ptr<Scenario> makeLossKeepsGraphScenario();
std::unique_ptr<Scenario> makeDataParallelNotCloneableScenario();
std::unique_ptr<Scenario> makeDataParallelPerStepScenario();
std::unique_ptr<Scenario> makeDiscardedResultScenario();
std::unique_ptr<Scenario> makeLaunchBlockingInCodeScenario();
std::unique_ptr<Scenario> makeCudnnDisabledScenario();
std::unique_ptr<Scenario> makeModuleNeverMovedScenario();
std::unique_ptr<Scenario> makeWidenBeforeCopyScenario();

/// All scenarios, in a fixed order.
const std::vector<std::unique_ptr<Scenario>> &allScenarios();

/// The scenario a recipe names, by its current id or by the one it had
/// before (common/Scenarios.def), or null.
const Scenario *findScenario(const std::string &Id);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_SCENARIOREGISTRY_H
