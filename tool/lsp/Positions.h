//===--- Positions.h - Files and places as LSP names them ------*- C++ -*-===//
//
// torchlint resolves findings to byte offsets in UTF-8 text; an LSP client
// counts characters in the encoding negotiated at initialize (UTF-16 unless
// both sides agree on another), and names files by file:// URIs.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_LSP_POSITIONS_H
#define TORCHLINT_TOOL_LSP_POSITIONS_H

#include "output/LineStarts.h"

#include "llvm/ADT/StringRef.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace torchlint::lsp {

enum class PositionEncoding { Utf8, Utf16, Utf32 };

const char *encodingName(PositionEncoding Encoding);
std::optional<PositionEncoding> parseEncoding(llvm::StringRef Name);

/// The code units of Encoding that the UTF-8 text Utf8 is made of. A byte
/// that does not belong to a valid UTF-8 sequence counts as one unit.
unsigned codeUnits(llvm::StringRef Utf8, PositionEncoding Encoding);

/// Converts byte offsets of one text into LSP positions.
class TextPositions {
public:
  TextPositions(std::string Text, PositionEncoding Encoding);
  /// {"line": 0-based, "character": code units from the line's start}; an
  /// offset past the end is the end.
  nlohmann::json at(unsigned Offset) const;
  nlohmann::json range(unsigned Begin, unsigned End) const;
  const std::string &text() const { return Text; }
  PositionEncoding encoding() const { return Encoding; }

private:
  std::string Text;
  PositionEncoding Encoding;
  LineStarts Lines;
};

/// The path of a file: URI; none for another scheme or a malformed one.
std::optional<std::string> pathFromUri(llvm::StringRef Uri);
/// The file: URI of an absolute path, percent-encoded as VS Code does.
std::string uriFromPath(llvm::StringRef Path);

} // namespace torchlint::lsp

#endif // TORCHLINT_TOOL_LSP_POSITIONS_H
