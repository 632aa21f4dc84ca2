//===--- BuildFolderFuzzer.cpp - What a CMake build folder says -----------===//
//
// torchlint-doctor --build-dir reads CMakeCache.txt, build.ninja, link.txt
// and file API replies that any project may have written. Whatever the
// text, each parser returns what it could read and never crashes, and every
// library it finds has a name and one --as-needed state.
//
//===----------------------------------------------------------------------===//

#include "BuildDirectory.h"

#include <cstdint>
#include <cstdlib>

using namespace torchlint::doctor;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  parseCMakeCache(Text);
  for (const LinkLine &Line : parseNinjaLinkLines(Text))
    for (const LinkedLibrary &Library : Line.Libraries)
      if (Library.Name.empty() || (Library.AsNeeded && Library.NoAsNeeded))
        std::abort();
  for (const LinkedLibrary &Library : parseLinkCommand(Text))
    if (Library.Name.empty())
      std::abort();
  parseFileApiTarget(Text);
  return 0;
}
