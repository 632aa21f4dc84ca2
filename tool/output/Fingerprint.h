//===--- Fingerprint.h - GitHub's primaryLocationLineHash -------*- C++ -*-===//
//
// GitHub code scanning matches results across commits by a rolling hash over
// the first 100 non-blank characters from the start of each line, with an
// occurrence counter for equal hashes in one file. This is the algorithm of
// github/codeql-action (src/fingerprints.ts), so that a log torchlint writes
// carries the fingerprints the upload action would compute.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_OUTPUT_FINGERPRINT_H
#define TORCHLINT_TOOL_OUTPUT_FINGERPRINT_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace torchlint {

/// "hash:count" for every line of a UTF-8 text; element 0 is line 1. Line
/// endings \n, \r\n and \r all count as one.
std::vector<std::string> lineHashes(llvm::StringRef Utf8Text);

} // namespace torchlint

#endif // TORCHLINT_TOOL_OUTPUT_FINGERPRINT_H
