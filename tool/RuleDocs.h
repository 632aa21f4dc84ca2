//===--- RuleDocs.h - docs/rules/<id>.md, built in --------------*- C++ -*-===//

#ifndef TORCHLINT_TOOL_RULEDOCS_H
#define TORCHLINT_TOOL_RULEDOCS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace torchlint {

/// The docs page of a rule, as Markdown; empty if it has none.
llvm::StringRef ruleDocMarkdown(llvm::StringRef RuleId);

/// The same page as plain text: no emphasis, code marks or fences; links as
/// "text (url)"; headings on lines of their own.
std::string markdownToText(llvm::StringRef Markdown);

} // namespace torchlint

#endif // TORCHLINT_TOOL_RULEDOCS_H
