#include "Positions.h"

#include "output/FileUri.h"

#include <algorithm>

namespace torchlint::lsp {

const char *encodingName(PositionEncoding Encoding) {
  switch (Encoding) {
  case PositionEncoding::Utf8:
    return "utf-8";
  case PositionEncoding::Utf16:
    return "utf-16";
  case PositionEncoding::Utf32:
    return "utf-32";
  }
  return "utf-16";
}

std::optional<PositionEncoding> parseEncoding(llvm::StringRef Name) {
  if (Name == "utf-8")
    return PositionEncoding::Utf8;
  if (Name == "utf-16")
    return PositionEncoding::Utf16;
  if (Name == "utf-32")
    return PositionEncoding::Utf32;
  return std::nullopt;
}

namespace {

/// The length of the UTF-8 sequence that starts at Text[I], or 0 when the
/// bytes there are not a valid one.
size_t sequenceLength(llvm::StringRef Text, size_t I) {
  unsigned char Lead = Text[I];
  size_t Length = Lead < 0x80           ? 1
                  : (Lead >> 5) == 0x6  ? 2
                  : (Lead >> 4) == 0xE  ? 3
                  : (Lead >> 3) == 0x1E ? 4
                                        : 0;
  if (Length == 0 || I + Length > Text.size())
    return 0;
  for (size_t K = 1; K < Length; ++K)
    if ((static_cast<unsigned char>(Text[I + K]) >> 6) != 0x2)
      return 0;
  return Length;
}

} // namespace

unsigned codeUnits(llvm::StringRef Utf8, PositionEncoding Encoding) {
  if (Encoding == PositionEncoding::Utf8)
    return Utf8.size();
  unsigned Units = 0;
  for (size_t I = 0; I < Utf8.size();) {
    size_t Length = sequenceLength(Utf8, I);
    if (Length == 0) {
      ++Units;
      ++I;
      continue;
    }
    // Outside the Basic Multilingual Plane: a surrogate pair in UTF-16.
    Units += Length == 4 && Encoding == PositionEncoding::Utf16 ? 2 : 1;
    I += Length;
  }
  return Units;
}

TextPositions::TextPositions(std::string Text, PositionEncoding Encoding)
    : Text(std::move(Text)), Encoding(Encoding), Lines(this->Text) {}

nlohmann::json TextPositions::at(unsigned Offset) const {
  size_t Clamped = std::min<size_t>(Offset, Text.size());
  size_t Line = Lines.lineOf(Clamped);
  llvm::StringRef Before(Text.data() + Lines[Line], Clamped - Lines[Line]);
  return {{"line", Line}, {"character", codeUnits(Before, Encoding)}};
}

nlohmann::json TextPositions::range(unsigned Begin, unsigned End) const {
  return {{"start", at(Begin)}, {"end", at(std::max(Begin, End))}};
}

namespace {

int hexValue(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  if (C >= 'a' && C <= 'f')
    return C - 'a' + 10;
  if (C >= 'A' && C <= 'F')
    return C - 'A' + 10;
  return -1;
}

} // namespace

std::optional<std::string> pathFromUri(llvm::StringRef Uri) {
  if (!Uri.consume_front("file://"))
    return std::nullopt;
  // Only local files: "file:///path" or "file://localhost/path".
  Uri.consume_front("localhost");
  if (!Uri.starts_with("/"))
    return std::nullopt;
  std::string Path;
  for (size_t I = 0; I < Uri.size(); ++I) {
    if (Uri[I] != '%') {
      Path += Uri[I];
      continue;
    }
    if (I + 2 >= Uri.size())
      return std::nullopt;
    int High = hexValue(Uri[I + 1]), Low = hexValue(Uri[I + 2]);
    if (High < 0 || Low < 0)
      return std::nullopt;
    Path += static_cast<char>(High * 16 + Low);
    I += 2;
  }
  if (Path.find('\0') != std::string::npos)
    return std::nullopt;
  return Path;
}

std::string uriFromPath(llvm::StringRef Path) { return fileUri(Path); }

} // namespace torchlint::lsp
