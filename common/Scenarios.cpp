//===--- Scenarios.cpp - Checks of the scenario list ----------------------===//
//
// Compiled once, so that a line added to Scenarios.def that reuses an id
// (current or old) fails the build instead of making currentId() ambiguous.
//
//===----------------------------------------------------------------------===//

#include "common/Scenarios.h"

namespace torchlint::scenario {
namespace {

constexpr int timesNamed(std::string_view Id) {
  int Count = 0;
  for (const Entry &Scenario : All)
    Count += (Id == Scenario.Id) + (Id == Scenario.OldId);
  return Count;
}

constexpr bool everyIdNamesOneScenario() {
  for (const Entry &Scenario : All) {
    if (Scenario.Id.empty() || timesNamed(Scenario.Id) != 1)
      return false;
    if (!Scenario.OldId.empty() && timesNamed(Scenario.OldId) != 1)
      return false;
  }
  return true;
}

static_assert(everyIdNamesOneScenario(),
              "Scenarios.def: an id, current or old, names two scenarios");

} // namespace
} // namespace torchlint::scenario
