//===--- Diagnostics.h - Findings as LSP diagnostics ------------*- C++ -*-===//

#ifndef TORCHLINT_TOOL_LSP_DIAGNOSTICS_H
#define TORCHLINT_TOOL_LSP_DIAGNOSTICS_H

#include "Positions.h"
#include "core/Finding.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace torchlint::lsp {

/// F as an LSP Diagnostic: its level as severity, its rule as code with a
/// link to the rule's page, its notes as relatedInformation. Positions is
/// the text of F's file; notes in other files are read from disk.
nlohmann::json toDiagnostic(const Finding &F, const TextPositions &Positions);

/// Two LSP ranges share a position (touching counts).
bool rangesIntersect(const nlohmann::json &A, const nlohmann::json &B);

/// What a quick fix is called in the editor's menu: the rule and what is
/// wrong, without what it costs.
std::string codeActionTitle(const Finding &F);

/// A file's text from disk; none when it cannot be read.
std::optional<std::string> fileText(const std::string &Path);

} // namespace torchlint::lsp

#endif // TORCHLINT_TOOL_LSP_DIAGNOSTICS_H
