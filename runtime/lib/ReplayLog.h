//===--- ReplayLog.h - The analyzer's log, read and annotated ---*- C++ -*-===//
//
// The replay reads the analyzer's SARIF (or its JSON) and writes the same
// document back with each replayed result's verdict added: in SARIF under
// properties.replay with the verdict appended to the message text, in JSON
// under "replay". Nothing else changes: no result is dropped or reordered,
// and the keys keep their order.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_REPLAYLOG_H
#define TORCHLINT_RUNTIME_REPLAYLOG_H

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace torchlint::replay {

/// A log that cannot be read; the message names the file and the problem.
struct LogError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One finding with a replay recipe.
struct ReplayItem {
  size_t Run = 0;    // SARIF run index (0 for JSON)
  size_t Result = 0; // index of the result / finding
  std::string RuleId;
  std::string Location; // file:line, for people
  nlohmann::ordered_json Recipe;
};

class ReplayLog {
public:
  enum class Format { Sarif, Json };

  static ReplayLog load(const std::string &Path);
  static ReplayLog parse(const std::string &Text, const std::string &Name);

  Format format() const { return Kind; }
  /// The findings that carry a recipe, in the log's order.
  std::vector<ReplayItem> items() const;
  /// Adds the replay of Item, and Summary to its message.
  void record(const ReplayItem &Item, const nlohmann::ordered_json &Replay,
              const std::string &Summary);
  std::string text() const;
  /// Writes to Path through a temporary file and a rename, so that a
  /// failed write leaves no half-written log.
  void save(const std::string &Path) const;

private:
  nlohmann::ordered_json &resultAt(size_t Run, size_t Result);
  nlohmann::ordered_json Document;
  Format Kind = Format::Sarif;
};

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_REPLAYLOG_H
