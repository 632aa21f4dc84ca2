#include "RuleRegistry.h"

#include "AutocastLeakCheck.h"
#include "AutocastStaleCacheCheck.h"
#include "AutocastWrongDeviceCheck.h"
#include "BackwardUnderAutocastCheck.h"
#include "CpuTensorThenMovedCheck.h"
#include "CudaVisibleDevicesInCodeCheck.h"
#include "CudnnBenchmarkOffCheck.h"
#include "DataLoaderNoWorkersCheck.h"
#include "DeviceMismatchCheck.h"
#include "EvalWithoutNoGradCheck.h"
#include "Fp16WithoutLossScalingCheck.h"
#include "HalfModelTrainingCheck.h"
#include "HardcodedCpuDeviceCheck.h"
#include "MissingMixedPrecisionCheck.h"
#include "PageableCopyCheck.h"
#include "SyncInLoopCheck.h"
#include "UncheckedCudaCheck.h"

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

} // namespace torchlint
