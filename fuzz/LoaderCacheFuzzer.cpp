//===--- LoaderCacheFuzzer.cpp - /etc/ld.so.cache
//--------------------------===//
//
// The doctor reads the machine's ld.so cache as ld.so would. Whatever the
// bytes, it is refused or read into names and paths of bounded length.
//
//===----------------------------------------------------------------------===//

#include "ElfFile.h"
#include "LibraryResolver.h"

#include <cstdint>
#include <cstdlib>

using namespace torchlint::doctor;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  MemorySource Bytes(std::string(reinterpret_cast<const char *>(Data), Size));
  for (std::uint16_t Machine : {MachineX86_64, MachineAArch64, MachineX86})
    if (auto Entries = parseLoaderCache(Bytes, Machine))
      for (const auto &[Name, Path] : *Entries)
        if (Name.size() > 4096 || Path.size() > 4096)
          std::abort();
  return 0;
}
