//===--- FileUri.h - file: URIs of paths ------------------------*- C++ -*-===//
//
// SARIF's artifact locations and the language server's documents name files
// by the same percent-encoded URIs (as VS Code writes them).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_OUTPUT_FILEURI_H
#define TORCHLINT_TOOL_OUTPUT_FILEURI_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace torchlint {

/// Path with every byte but letters, digits and "/-._~" percent-encoded.
inline std::string percentEncoded(llvm::StringRef Path) {
  std::string Uri;
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-._~").contains(C)) {
      Uri += C;
    } else {
      Uri += '%';
      Uri += llvm::hexdigit(C >> 4, /*LowerCase=*/false);
      Uri += llvm::hexdigit(C & 0xF, false);
    }
  }
  return Uri;
}

/// A file:// URI for an absolute path, percent-encoded.
inline std::string fileUri(llvm::StringRef Path) {
  return "file://" + percentEncoded(Path);
}

} // namespace torchlint

#endif // TORCHLINT_TOOL_OUTPUT_FILEURI_H
