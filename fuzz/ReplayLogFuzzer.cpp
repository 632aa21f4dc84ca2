//===--- ReplayLogFuzzer.cpp - SARIF and JSON logs for the replay ---------===//
//
// torchlint-replay reads a log that may come from anywhere. Whatever the
// text, it is refused with a LogError or read; a log that was read takes a
// verdict on each of its items and, written back, reads again with the same
// items.
//
//===----------------------------------------------------------------------===//

#include "ReplayLog.h"

#include <cstdint>
#include <cstdlib>

using torchlint::replay::LogError;
using torchlint::replay::ReplayItem;
using torchlint::replay::ReplayLog;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  try {
    ReplayLog Log = ReplayLog::parse(Text, "fuzz.sarif");
    std::vector<ReplayItem> Items = Log.items();
    for (const ReplayItem &Item : Items)
      Log.record(Item, {{"verdict", "not-run"}, {"reason", "fuzzing"}},
                 "not replayed: fuzzing");
    ReplayLog Again = ReplayLog::parse(Log.text(), "again.sarif");
    if (Again.items().size() != Items.size() || Again.format() != Log.format())
      std::abort();
  } catch (const LogError &) {
  }
  return 0;
}
