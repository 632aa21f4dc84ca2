//===--- LibraryResolver.h - Which libraries a program loads ----*- C++ -*-===//
//
// Finds a program's shared libraries as glibc's dynamic loader does
// (ld.so(8)), without loading any of them: breadth first from the program,
// each DT_NEEDED name looked up in
//   1. the DT_RPATH of the object that needs it and of the objects that
//      loaded it, up to the program, while that object has no DT_RUNPATH;
//   2. LD_LIBRARY_PATH;
//   3. the DT_RUNPATH of the object that needs it (never its loaders');
//   4. /etc/ld.so.cache;
//   5. the default folders;
// with $ORIGIN (the folder of the object the path belongs to), $LIB and
// $PLATFORM expanded, a name that is already loaded (by soname) reused, and
// files of another class or machine passed over, a file that is no usable
// ELF library a stop (as it stops ld.so), and one file under two names
// mapped once. Not modelled: glibc-hwcaps subfolders, LD_PRELOAD,
// DF_1_NODEFLIB and secure-execution mode.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_LIBRARYRESOLVER_H
#define TORCHLINT_RUNTIME_LIBRARYRESOLVER_H

#include "ElfFile.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace torchlint::doctor {

/// What the loader's search depends on besides the files.
struct LoaderSettings {
  /// LD_LIBRARY_PATH as the program would get it.
  std::string LibraryPath;
  std::string CacheFile = "/etc/ld.so.cache";
  /// Empty: the defaults for the program's machine (defaultFolders).
  std::vector<std::string> DefaultFolders;
  /// Stops a hostile or cyclic tree; real programs load a few hundred.
  std::size_t MostObjects = 2000;
};

/// ld.so's default folders for \p Machine: those this machine's ld.so
/// says it searches (`ld.so --help`), else Debian's multiarch folders and
/// the traditional ones.
std::vector<std::string> defaultFolders(std::uint16_t Machine);

/// Soname to path, for the entries of \p Machine, in the cache's order;
/// nullopt when \p Bytes is not an ld.so cache in the format glibc 2.32 and
/// newer write (optionally behind the old "ld.so-1.7.0" table).
std::optional<std::multimap<std::string, std::string>>
parseLoaderCache(const ByteSource &Bytes, std::uint16_t Machine);

/// How one library was found, or where it was looked for.
struct LoadedLibrary {
  /// The DT_NEEDED name.
  std::string Name;
  /// Which object's DT_NEEDED asked for it.
  std::string NeededBy;
  bool Found = false;
  /// The path as the loader would open it (not resolved through links).
  std::string Path;
  /// "RUNPATH of app", "LD_LIBRARY_PATH", "ld.so cache", "default folder".
  std::string FoundThrough;
  /// Where it was looked for, in order, each with the mechanism that put it
  /// there: "/opt/libtorch/lib (RUNPATH of app)".
  std::vector<std::string> Searched;
  ElfFile Elf;
  /// The found file's device and inode.
  std::pair<std::uint64_t, std::uint64_t> FileIdentity;
};

struct LoadedProgram {
  /// Breadth-first, as ld.so maps them; each missing name appears once.
  std::vector<LoadedLibrary> Libraries;
  /// The search stopped at LoaderSettings::MostObjects.
  bool Truncated = false;

  const LoadedLibrary *find(const std::string &Soname) const;
};

/// Resolves \p Program (read from \p ProgramPath) and everything it loads.
LoadedProgram resolveLibraries(const std::string &ProgramPath,
                               const ElfFile &Program,
                               const LoaderSettings &Settings);

/// "libtorch_cuda.so.2.1" -> "libtorch_cuda"; the file name's stem before
/// ".so", so that versioned and unversioned names compare.
std::string libraryStem(const std::string &FileName);

} // namespace torchlint::doctor

#endif // TORCHLINT_RUNTIME_LIBRARYRESOLVER_H
