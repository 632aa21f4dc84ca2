//===--- SarifMerge.h - torchlint merge: shards into one log ----*- C++ -*-===//
//
// `torchlint --shard=K/N` on N machines writes N SARIF logs; code review
// wants one upload. `torchlint merge` combines them into one run: the rules
// of all, each result once (the same rule, file and fingerprint found by two
// shards through a shared header is one result), every invocation kept.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_OUTPUT_SARIFMERGE_H
#define TORCHLINT_TOOL_OUTPUT_SARIFMERGE_H

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace torchlint {

/// The logs at Paths as one SARIF 2.1.0 log with one run. An unreadable file,
/// invalid JSON, a log that torchlint did not write or logs whose source
/// roots differ are one error naming the file.
llvm::Expected<nlohmann::json>
mergeSarifLogs(const std::vector<std::string> &Paths);

/// `torchlint merge LOG... [--fail-on=LEVEL] [-o FILE]`: the exit status;
/// with --fail-on, 1 for a result at or above LEVEL and 2 for a log of a
/// run that could not analyze a unit, as the analysis itself exits.
int runMerge(int Argc, const char *const *Argv);

} // namespace torchlint

#endif // TORCHLINT_TOOL_OUTPUT_SARIFMERGE_H
