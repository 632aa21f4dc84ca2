//===--- Suppressions.h - NOLINT comments as clang-tidy reads them -*- C++ -*-//

#ifndef TORCHLINT_TOOL_OUTPUT_SUPPRESSIONS_H
#define TORCHLINT_TOOL_OUTPUT_SUPPRESSIONS_H

#include "llvm/ADT/StringRef.h"

namespace torchlint {

/// True when the finding of RuleId on Line (1-based) of Text is suppressed by
/// `// NOLINT`, `// NOLINT(rule-id, glob*)` on that line, `// NOLINTNEXTLINE`
/// on the line before, or a `// NOLINTBEGIN` ... `// NOLINTEND` block around
/// it.
bool isSuppressed(llvm::StringRef Text, unsigned Line, llvm::StringRef RuleId);

} // namespace torchlint

#endif // TORCHLINT_TOOL_OUTPUT_SUPPRESSIONS_H
