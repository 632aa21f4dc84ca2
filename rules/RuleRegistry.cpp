#include "rules/RuleRegistry.h"

#include "rules/AnomalyDetectionEnabledCheck.h"
#include "rules/AutocastLeakCheck.h"
#include "rules/AutocastStaleCacheCheck.h"
#include "rules/AutocastWrongDeviceCheck.h"
#include "rules/BackwardUnderAutocastCheck.h"
#include "rules/CpuTensorThenMovedCheck.h"
#include "rules/CudaVisibleDevicesInCodeCheck.h"
#include "rules/CudnnBenchmarkOffCheck.h"
#include "rules/CudnnDisabledCheck.h"
#include "rules/DataLoaderNoWorkersCheck.h"
#include "rules/DataParallelNotCloneableCheck.h"
#include "rules/DataParallelPerStepCheck.h"
#include "rules/DeviceMismatchCheck.h"
#include "rules/DiscardedResultCheck.h"
#include "rules/EvalWithoutNoGradCheck.h"
#include "rules/EveryRankOnOneGpuCheck.h"
#include "rules/Fp16WithoutLossScalingCheck.h"
#include "rules/HalfModelTrainingCheck.h"
#include "rules/HardcodedCpuDeviceCheck.h"
#include "rules/LaunchBlockingInCodeCheck.h"
#include "rules/LossKeepsGraphCheck.h"
#include "rules/MissingMixedPrecisionCheck.h"
#include "rules/ModuleNeverMovedCheck.h"
#include "rules/PageableCopyCheck.h"
#include "rules/SetupInLoopCheck.h"
#include "rules/SyncInLoopCheck.h"
#include "rules/UncheckedCudaCheck.h"
#include "rules/UnregisteredSubmoduleCheck.h"
#include "rules/UnsynchronizedTimingCheck.h"
#include "rules/WidenBeforeCopyCheck.h"

namespace torchlint {

template <typename RuleClass>
static std::unique_ptr<Rule> create(AnalysisContext &Context) {
  return std::make_unique<RuleClass>(Context);
}

template <typename RuleClass> static RuleEntry entry() {
  return RuleEntry{RuleClass::Info, &create<RuleClass>};
}

llvm::ArrayRef<RuleEntry> allRules() {
  // One rule per line, in the order --list-checks shows them.
  // clang-format off
  static const RuleEntry Rules[] = {
      entry<DeviceMismatchCheck>(),
      entry<HardcodedCpuDeviceCheck>(),
      entry<UncheckedCudaCheck>(),
      entry<PageableCopyCheck>(),
      entry<DataLoaderNoWorkersCheck>(),
      entry<CpuTensorThenMovedCheck>(),
      entry<SyncInLoopCheck>(),
      entry<CudaVisibleDevicesInCodeCheck>(),
      entry<EvalWithoutNoGradCheck>(),
      entry<CudnnBenchmarkOffCheck>(),
      entry<AutocastStaleCacheCheck>(),
      entry<AutocastLeakCheck>(),
      entry<BackwardUnderAutocastCheck>(),
      entry<AutocastWrongDeviceCheck>(),
      entry<Fp16WithoutLossScalingCheck>(),
      entry<HalfModelTrainingCheck>(),
      entry<MissingMixedPrecisionCheck>(),
      entry<SetupInLoopCheck>(),
      entry<UnsynchronizedTimingCheck>(),
      entry<UnregisteredSubmoduleCheck>(),
      entry<AnomalyDetectionEnabledCheck>(),
      entry<LossKeepsGraphCheck>(),
      entry<DataParallelNotCloneableCheck>(),
      entry<DataParallelPerStepCheck>(),
      entry<DiscardedResultCheck>(),
      entry<LaunchBlockingInCodeCheck>(),
      entry<CudnnDisabledCheck>(),
      entry<EveryRankOnOneGpuCheck>(),
      entry<WidenBeforeCopyCheck>(),
      entry<ModuleNeverMovedCheck>(),
  };
  // clang-format on
  return Rules;
}

const RuleEntry *findRule(llvm::StringRef Id) {
  for (const RuleEntry &Entry : allRules())
    if (Id == Entry.Info.Id)
      return &Entry;
  return nullptr;
}

std::string defaultChecks() {
  std::string Globs = "torch-*";
  for (const RuleEntry &Entry : allRules())
    if (!Entry.Info.EnabledByDefault)
      Globs += ",-" + std::string(Entry.Info.Id);
  return Globs;
}

} // namespace torchlint
