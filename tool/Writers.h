//===--- Writers.h - The output formats: views of one Report ----*- C++ -*-===//

#ifndef TORCHLINT_TOOL_WRITERS_H
#define TORCHLINT_TOOL_WRITERS_H

#include "Report.h"

#include "llvm/Support/raw_ostream.h"

namespace torchlint {

/// clang's format: `path:line:col: warning: message [rule-id]`, the source
/// line with a caret and range underline, fix-its below it, then notes.
void writeText(const Report &R, SourceCache &Sources, llvm::raw_ostream &OS,
               bool Color);

/// One JSON document: findings, failures, the enabled rules.
void writeJson(const Report &R, llvm::raw_ostream &OS);

/// A SARIF 2.1.0 log with one run.
void writeSarif(const Report &R, SourceCache &Sources, llvm::raw_ostream &OS);

/// The 1-based UTF-16 column of a 1-based byte column in Line.
unsigned utf16Column(llvm::StringRef Line, unsigned ByteColumn);

/// A file:// URI for an absolute path, percent-encoded.
std::string fileUri(llvm::StringRef Path);

/// The tool's version.
const char *torchlintVersion();

} // namespace torchlint

#endif // TORCHLINT_TOOL_WRITERS_H
