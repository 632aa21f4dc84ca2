//===--- AtomicFile.h - Replace a file's contents all at once ---*- C++ -*-===//
//
// A reader, or a torchlint run beside this one, sees a file either as it was
// or as it is now, never half written: the new contents go to a temporary
// file in the same directory, which is then renamed over the file.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_CACHE_ATOMICFILE_H
#define TORCHLINT_TOOL_CACHE_ATOMICFILE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace torchlint {

/// Writes Contents to Path atomically, keeping the permissions of a file
/// already there. An empty string means success; otherwise why it failed.
std::string writeAtomically(const std::string &Path, llvm::StringRef Contents);

} // namespace torchlint

#endif // TORCHLINT_TOOL_CACHE_ATOMICFILE_H
