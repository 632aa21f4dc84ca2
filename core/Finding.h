//===--- Finding.h - The one record every rule produces ---------*- C++ -*-===//
//
// A finding is resolved to files, byte offsets, lines and columns as soon as a
// rule reports it, so that it outlives the AST: the CLI sorts, suppresses,
// caches and prints it; the clang-tidy plugin maps it back onto clang
// diagnostics. Every output format is a view of this structure.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_CORE_FINDING_H
#define TORCHLINT_CORE_FINDING_H

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace torchlint {

enum class Level { Note, Warning, Error };

const char *levelName(Level L);
std::optional<Level> parseLevel(const std::string &Name);

/// A position in a file: byte offset plus 1-based line and byte column.
struct Position {
  unsigned Offset = 0;
  unsigned Line = 0;
  unsigned Column = 0;
};

/// A half-open character range [Begin, End) within one file.
struct Span {
  std::string File;
  Position Begin;
  Position End;
};

struct Note {
  Span Where;
  std::string Message;
};

/// Replace [Offset, Offset + Length) of File with Replacement.
struct FixIt {
  std::string File;
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string Replacement;
};

struct Finding {
  std::string RuleId;
  Level Severity = Level::Warning;
  Span Where;
  std::string Message;
  std::vector<Note> Notes;
  std::vector<FixIt> FixIts;
  /// The steps from where a value got its device to where it is used, for
  /// SARIF code flows. Empty when the rule has no such path.
  std::vector<Note> Flow;
  /// What the code tells about the workload (scenario, module construction,
  /// shapes, dtypes, batch size, device expression); null when the finding has
  /// nothing to replay.
  nlohmann::json Recipe;
};

/// The order every output uses: file, line, column, rule, then message.
bool operator<(const Finding &A, const Finding &B);
bool operator==(const Finding &A, const Finding &B);

nlohmann::json toJson(const Finding &F);
nlohmann::json toJson(const Span &S);
/// The inverse of toJson(const Span &); throws nlohmann::json::exception.
Span spanFromJson(const nlohmann::json &J);
/// The inverse of toJson(const Finding &); throws nlohmann::json::exception
/// when J is not such a finding.
Finding findingFromJson(const nlohmann::json &J);

} // namespace torchlint

#endif // TORCHLINT_CORE_FINDING_H
