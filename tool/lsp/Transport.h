//===--- Transport.h - LSP base protocol framing ----------------*- C++ -*-===//
//
// The Language Server Protocol frames each JSON-RPC message with headers
// ("Content-Length: N", optionally "Content-Type: ..."), a blank line and N
// bytes of body. The framing is ours: Debian has no maintained C++ LSP
// library, and clangd's is internal to clangd. It is small, and a libFuzzer
// target (fuzz/LspFramingFuzzer.cpp) holds it to its contract.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_LSP_TRANSPORT_H
#define TORCHLINT_TOOL_LSP_TRANSPORT_H

#include <cstddef>
#include <istream>
#include <ostream>
#include <string>

namespace torchlint::lsp {

/// The largest body read: a larger message is skipped, not buffered.
constexpr size_t MaxBodyBytes = 64u << 20;

struct Frame {
  enum Kind {
    /// Body holds one message's bytes (not yet parsed as JSON).
    Message,
    /// The headers were unusable: Problem says why. The bytes up to the
    /// blank line that ends them were consumed, and so was the body when
    /// its length was known; reading may go on.
    Malformed,
    /// The input ended (in the middle of a message, or between two).
    End,
  };
  Kind What = End;
  std::string Body;
  std::string Problem;
};

/// Reads the next frame from In. Header lines may end in CRLF (as the
/// protocol says) or LF alone; header names are matched without case.
Frame readFrame(std::istream &In);

/// Writes Body framed with its Content-Length. The caller serializes calls.
void writeFrame(std::ostream &Out, const std::string &Body);

} // namespace torchlint::lsp

#endif // TORCHLINT_TOOL_LSP_TRANSPORT_H
