//===--- Scheduler.h - Translation units in parallel ------------*- C++ -*-===//

#ifndef TORCHLINT_TOOL_DRIVER_SCHEDULER_H
#define TORCHLINT_TOOL_DRIVER_SCHEDULER_H

#include "driver/Analyzer.h"

#include <functional>
#include <vector>

namespace torchlint {

using UnitAnalyzer =
    std::function<TranslationUnitResult(const CompileEntry &Entry)>;
using ProgressCallback =
    std::function<void(size_t Done, size_t Total, const std::string &File)>;

/// Analyzes every entry with Analyze on Jobs worker threads, largest source
/// first so that the slowest unit does not start last. Results come back in the
/// order of Entries, whatever Jobs is.
std::vector<TranslationUnitResult>
analyzeAll(const std::vector<CompileEntry> &Entries,
           const UnitAnalyzer &Analyze, unsigned Jobs,
           const ProgressCallback &Progress);

} // namespace torchlint

#endif // TORCHLINT_TOOL_DRIVER_SCHEDULER_H
