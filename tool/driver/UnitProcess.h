//===--- UnitProcess.h - One unit in a process of its own -------*- C++ -*-===//
//
// With --timeout, each unit is analyzed by a child torchlint, which is killed
// when it runs over its time: a thread inside clang cannot be stopped, a
// process can. The child prints its unit's result as JSON; a child that
// crashes or is killed costs its unit only.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_DRIVER_UNITPROCESS_H
#define TORCHLINT_TOOL_DRIVER_UNITPROCESS_H

#include "driver/Analyzer.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace torchlint {

nlohmann::json toJson(const TranslationUnitResult &Result);
/// Throws nlohmann::json::exception when J is not such a result.
TranslationUnitResult unitResultFromJson(const nlohmann::json &J);

/// Runs Command (a torchlint with --internal-unit=N, for Entry) and reads the
/// result it prints; a child over TimeoutSeconds is killed, and its unit is
/// reported as not analyzed.
TranslationUnitResult analyzeInChild(const CompileEntry &Entry,
                                     const std::vector<std::string> &Command,
                                     unsigned TimeoutSeconds);

} // namespace torchlint

#endif // TORCHLINT_TOOL_DRIVER_UNITPROCESS_H
