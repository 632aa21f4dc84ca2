//===--- RuleDocs.h - docs/rules/<id>.md, built in --------------*- C++ -*-===//

#ifndef TORCHLINT_TOOL_OUTPUT_RULEDOCS_H
#define TORCHLINT_TOOL_OUTPUT_RULEDOCS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace torchlint {

/// The docs page of a rule, as Markdown; empty if it has none.
llvm::StringRef ruleDocMarkdown(llvm::StringRef RuleId);

/// Where the page is read on the web: SARIF's helpUri, the LSP
/// diagnostic's codeDescription.
std::string ruleDocUri(llvm::StringRef RuleId);

/// The page's lead, as plain text: what the rule finds, between its level
/// line and its first section; SARIF's fullDescription. Paragraphs are
/// separated by a blank line; at most MaxSize bytes, cut after a sentence.
std::string ruleDocLead(llvm::StringRef RuleId, size_t MaxSize = 1024);

/// The same page as plain text: no emphasis, code marks or fences; links as
/// "text (url)"; headings on lines of their own.
std::string markdownToText(llvm::StringRef Markdown);

} // namespace torchlint

#endif // TORCHLINT_TOOL_OUTPUT_RULEDOCS_H
