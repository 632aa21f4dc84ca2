//===--- Replayer.h - Replaying every finding of a log ----------*- C++ -*-===//

#ifndef TORCHLINT_RUNTIME_REPLAYER_H
#define TORCHLINT_RUNTIME_REPLAYER_H

#include "ReplayLog.h"
#include "Scenario.h"

#include <iosfwd>
#include <string>

namespace torchlint::replay {

struct ReplayOptions {
  std::string Device = "cuda:0";
  /// clang-tidy style globs over rule ids.
  std::string Checks = "*";
  unsigned Repeats = 30;
  /// Timing budget per finding, in seconds.
  double BudgetSeconds = 10;
  /// torchlint-replay itself, for variants that need a process apart.
  std::string Executable;
  /// --model and --input-shape (UserModel.h).
  std::string ModelFile;
  std::vector<int64_t> ModelInputShape;
};

/// Where the replay runs and what with; stated in every replay result.
struct Environment {
  c10::Device Device = c10::Device(c10::DeviceType::CPU);
  std::string CudaUnusable; // empty when the requested CUDA device is usable
  std::string DeviceName;
  std::string TorchVersion;
  std::string CudaVersion; // the CUDA runtime libtorch was built with, or ""
  bool BuiltWithCuda = false;
};

/// Probes the machine. Throws std::invalid_argument for a malformed device.
Environment probeEnvironment(const std::string &DeviceSpec);

struct ReplayRow {
  ReplayItem Item;
  /// The current id of the scenario replayed, or what the recipe named when
  /// no scenario has that id.
  std::string Scenario;
  ScenarioOutcome Outcome;
  std::vector<std::string> Assumptions;
  double Seconds = 0;
};

/// Replays one finding; every failure, out of memory included, ends as
/// not-run with its reason.
ReplayRow replayItem(const ReplayItem &Item, const Environment &Env,
                     const ReplayOptions &Options);

/// What goes into the log for a row: verdict, medians, the ratio with its
/// interval, repeats, device and versions, assumptions.
nlohmann::ordered_json replayProperties(const ReplayRow &Row,
                                        const Environment &Env);

/// The short form appended to the finding's message.
std::string replaySummary(const ReplayRow &Row, const Environment &Env);

void printTable(const std::vector<ReplayRow> &Rows, std::ostream &Out);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_REPLAYER_H
