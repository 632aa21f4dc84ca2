//===--- BuildDirectory.h - What a configured CMake project links -*- C++ -*-=//
//
// Reads a CMake build folder without writing into it or running CMake: the
// libtorch that find_package(Torch) chose (CMakeCache.txt), and each linked
// target's link line, from build.ninja (Ninja generators), link.txt (Makefile
// generators) or a CMake file API reply that already exists. The parsers
// take text, so the tests and fuzzers need no build folder.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_BUILDDIRECTORY_H
#define TORCHLINT_RUNTIME_BUILDDIRECTORY_H

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torchlint::doctor {

/// NAME:TYPE=VALUE lines of CMakeCache.txt; comments and malformed lines are
/// skipped.
std::map<std::string, std::string> parseCMakeCache(const std::string &Text);

/// Splits a command line as a POSIX shell would (quotes and backslashes),
/// which is how both generators write link lines.
std::vector<std::string> splitCommandLine(const std::string &Line);

/// One library on a link line.
struct LinkedLibrary {
  /// "torch_cuda" for -ltorch_cuda, .../libtorch_cuda.so or
  /// -l:libtorch_cuda.so.
  std::string Name;
  /// As written, without the -Wl wrapping.
  std::string Spelling;
  /// --as-needed was in effect where it appears (explicitly, on the line).
  bool AsNeeded = false;
  /// --no-as-needed was in effect (explicitly, on the line).
  bool NoAsNeeded = false;
};

struct LinkLine {
  /// The target's output as the generator names it ("app", "bin/app").
  std::string Target;
  /// The CMake target's name, for fixes ("app", "postprocess"); empty when
  /// the generator's files do not say.
  std::string CMakeTarget;
  /// Where it was read: "build.ninja", "CMakeFiles/app.dir/link.txt".
  std::string Source;
  std::vector<LinkedLibrary> Libraries;

  const LinkedLibrary *find(const std::string &Name) const;
};

/// The libraries of one link command line, with the --as-needed state at
/// each (from -Wl,--as-needed, -Wl,--no-as-needed and -Wl,a,b lists).
std::vector<LinkedLibrary> parseLinkCommand(const std::string &Line);

/// The executables and shared libraries of a build.ninja: each `build` edge
/// whose rule is a CMake linker rule, with its LINK_LIBRARIES and
/// LINK_FLAGS.
std::vector<LinkLine> parseNinjaLinkLines(const std::string &Text);

/// The link command fragments of a CMake file API target reply
/// (codemodel-v2 "target" object); nullopt when it is not one or links
/// nothing.
std::optional<LinkLine> parseFileApiTarget(const std::string &Json);

/// What a configured build folder says about its libtorch.
struct BuildFolder {
  std::string Folder;
  std::string Generator;
  /// Torch_DIR from the cache; "" when absent, or ending in -NOTFOUND.
  std::string TorchDir;
  /// The folder holding libtorch's libraries, when it could be told.
  std::string TorchLibraryFolder;
  /// Whether Caffe2Config.cmake beside TorchConfig.cmake enables CUDA;
  /// nullopt when it could not be read.
  std::optional<bool> ConfigUsesCuda;
  std::vector<LinkLine> LinkLines;
  /// Where the link lines were looked for when none was found.
  std::string LinkLinesSearched;
  /// CMAKE_CXX_COMPILER (else CMAKE_C_COMPILER) from the cache.
  std::string Compiler;
  /// Whether that compiler's driver passes --as-needed to the linker before
  /// the libraries (Debian's and Ubuntu's GCC do); nullopt when it could not
  /// be asked.
  std::optional<bool> CompilerAddsAsNeeded;
};

/// Asks \p Compiler (an absolute path) for the link command it would run
/// (`-###`, which runs nothing) and whether --as-needed is on it.
std::optional<bool> compilerAddsAsNeeded(const std::string &Compiler);

/// Reads \p Folder; sets \p Error to one sentence when it is not a
/// configured CMake build folder (no CMakeCache.txt).
std::optional<BuildFolder> readBuildFolder(const std::string &Folder,
                                           std::string &Error);

} // namespace torchlint::doctor

#endif // TORCHLINT_RUNTIME_BUILDDIRECTORY_H
