//===--- Scenarios.h - Replay scenario ids, old and current -----*- C++ -*-===//
//
// The rules name a scenario in each recipe and torchlint-replay looks it up;
// both take the id from here, generated from Scenarios.def, so a renamed id
// changes both at once. Logs written before a rename hold the old id, which
// currentId() still maps. No LLVM and no libtorch: the runtime builds alone.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_COMMON_SCENARIOS_H
#define TORCHLINT_COMMON_SCENARIOS_H

#include <optional>
#include <string_view>

namespace torchlint::scenario {

#define TORCHLINT_SCENARIO(Name, Id, RuleId, OldId)                            \
  inline constexpr const char *Name = Id;
#include "common/Scenarios.def"

/// A scenario as Scenarios.def lists it; OldId is empty when it never had
/// another id.
struct Entry {
  std::string_view Id;
  std::string_view RuleId;
  std::string_view OldId;
};

/// Every scenario, in the order of Scenarios.def.
inline constexpr Entry All[] = {
#define TORCHLINT_SCENARIO(Name, Id, RuleId, OldId) {Id, RuleId, OldId},
#include "common/Scenarios.def"
};

/// The current id of the scenario that LoggedId (a current or an old id)
/// names, or nullopt when no scenario has that id.
constexpr std::optional<std::string_view> currentId(std::string_view LoggedId) {
  for (const Entry &Scenario : All)
    if (LoggedId == Scenario.Id ||
        (!Scenario.OldId.empty() && LoggedId == Scenario.OldId))
      return Scenario.Id;
  return std::nullopt;
}

} // namespace torchlint::scenario

#endif // TORCHLINT_COMMON_SCENARIOS_H
