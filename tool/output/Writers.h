//===--- Writers.h - The output formats: views of one Report ----*- C++ -*-===//

#ifndef TORCHLINT_TOOL_OUTPUT_WRITERS_H
#define TORCHLINT_TOOL_OUTPUT_WRITERS_H

#include "output/FileUri.h"
#include "output/Report.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>
#include <vector>

namespace torchlint {

enum class OutputFormat { Text, Json, Sarif };

/// clang's format: `path:line:col: warning: message [rule-id]`, the source
/// line with a caret and range underline, fix-its below it, then notes.
void writeText(const Report &R, SourceCache &Sources, llvm::raw_ostream &OS,
               bool Color);

/// One JSON document: findings, failures, the enabled rules.
void writeJson(const Report &R, llvm::raw_ostream &OS);

/// --list-checks: the rules' ids under clang-tidy's heading, those off by
/// default marked; with JSON, each rule's id, level, whether it is on by
/// default, offers fix-its, and its summary (the source of the rule lists
/// in README.md and docs/rules/README.md).
void writeRuleList(const std::vector<const RuleInfo *> &Rules,
                   OutputFormat Format, llvm::raw_ostream &OS);

struct SarifOptions {
  /// Paths under it are written relative to %SRCROOT%.
  std::string SourceRoot;
  /// runs[0].automationDetails.id, so that several uploads of one commit
  /// stay apart; empty: none.
  std::string Category;
  /// Name SourceRoot's absolute URI in originalUriBaseIds. A hermetic run
  /// leaves it to the consumer, so that its bytes do not depend on where it
  /// ran.
  bool WriteRootUri = true;
};

/// A SARIF 2.1.0 log with one run, ready for GitHub code scanning.
void writeSarif(const Report &R, SourceCache &Sources,
                const SarifOptions &Options, llvm::raw_ostream &OS);

/// How a result is recognised across runs: rule, file and GitHub's line
/// fingerprint. The same key is read back from a baseline log.
std::string resultKey(const Finding &F, SourceCache &Sources,
                      const std::string &SourceRoot);

/// The keys of every result of a SARIF log, for --baseline.
llvm::Expected<std::set<std::string>> readBaselineKeys(const std::string &Path);

/// The 1-based UTF-16 column of a 1-based byte column in Line.
unsigned utf16Column(llvm::StringRef Line, unsigned ByteColumn);

/// The path relative to Root, percent-encoded as a URI reference, or empty
/// when Path is not under Root.
std::string relativeUri(llvm::StringRef Path, llvm::StringRef Root);

/// The tool's version.
const char *torchlintVersion();

} // namespace torchlint

#endif // TORCHLINT_TOOL_OUTPUT_WRITERS_H
