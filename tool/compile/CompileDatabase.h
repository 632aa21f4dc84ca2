//===--- CompileDatabase.h - Reading compile_commands.json ------*- C++ -*-===//
//
// torchlint reads the JSON compilation database itself rather than through
// clang's loader, so that every problem comes back as one line naming the file
// and what is wrong with it (with line and column for malformed JSON).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_COMPILE_COMPILEDATABASE_H
#define TORCHLINT_TOOL_COMPILE_COMPILEDATABASE_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace torchlint {

struct CompileEntry {
  /// Absolute working directory of the compilation.
  std::string Directory;
  /// Absolute, normalised path of the main source file.
  std::string File;
  /// The compiler's command line, argv[0] included.
  std::vector<std::string> Arguments;
};

struct CompileDatabase {
  /// The compile_commands.json that was read.
  std::string Path;
  std::vector<CompileEntry> Entries;
};

/// Loads Path, which names a compile_commands.json or a directory holding
/// one. A relative "directory" is taken relative to the database's own
/// folder; a relative "file" relative to its "directory".
llvm::Expected<CompileDatabase> loadCompileDatabase(const std::string &Path);

/// Parses the text of a database (Path is used in messages and to resolve
/// relative directories).
llvm::Expected<CompileDatabase> parseCompileDatabase(const std::string &Text,
                                                     const std::string &Path);

/// Splits a shell command line as the JSON database's "command" field is
/// meant: POSIX quoting and backslash escapes.
std::vector<std::string> splitCommandLine(const std::string &Command);

/// The absolute, dot-free form of Path taken relative to Base.
std::string absolutePath(const std::string &Path, const std::string &Base);

/// CUDA sources (.cu, or compiled by nvcc) need the CUDA toolchain to parse
/// and hold kernels rather than libtorch host code: they are set aside, and
/// are not part of the program the summary pass sees.
bool isCudaSource(const CompileEntry &Entry);

/// The root of the sources (SARIF's paths, where .clang-tidy is looked
/// for): Override when given, else the git work tree that holds the first
/// entry's file, else the current directory.
std::string sourceRoot(const std::string &Override,
                       const std::vector<CompileEntry> &Entries);

} // namespace torchlint

#endif // TORCHLINT_TOOL_COMPILE_COMPILEDATABASE_H
