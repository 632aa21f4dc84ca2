//===--- LspFramingFuzzer.cpp - What an editor, or anything, writes -------===//
//
// `torchlint lsp` reads whatever arrives on its stdin. Whatever the bytes,
// the reader returns frames until the end, each body as long as its header
// said, and always moves forward; URIs and columns from those messages are
// converted without reading out of bounds.
//
//===----------------------------------------------------------------------===//

#include "lsp/Positions.h"
#include "lsp/Transport.h"

#include <cstdint>
#include <cstdlib>
#include <sstream>

using namespace torchlint::lsp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Bytes(reinterpret_cast<const char *>(Data), Size);
  std::istringstream In(Bytes);
  size_t Frames = 0;
  while (true) {
    std::streampos Before = In.tellg();
    Frame F = readFrame(In);
    if (F.What == Frame::End)
      break;
    if (F.What == Frame::Malformed && F.Problem.empty())
      std::abort();
    if (F.What == Frame::Message && F.Body.size() > Size)
      std::abort();
    // Every frame consumes input; a reader that did not would loop forever.
    if (In.tellg() == Before || ++Frames > Size)
      std::abort();
  }

  std::optional<std::string> Path = pathFromUri(Bytes);
  if (Path && pathFromUri(uriFromPath(*Path)) != Path)
    std::abort();
  for (PositionEncoding E : {PositionEncoding::Utf8, PositionEncoding::Utf16,
                             PositionEncoding::Utf32})
    if (codeUnits(Bytes, E) > Size)
      std::abort();
  TextPositions Positions(Bytes, PositionEncoding::Utf16);
  for (unsigned Offset : {0u, unsigned(Size / 2), unsigned(Size)})
    (void)Positions.at(Offset);
  return 0;
}
