//===--- ProgramFileFuzzer.cpp - ELF files and their GPU code -------------===//
//
// torchlint-doctor --binary reads whatever file it is given, and the
// libraries that file names. Whatever the bytes, the reader answers with an
// ElfFile or one error sentence, and the GPU code reader with what it could
// read; names stay within their string tables' bounds.
//
//===----------------------------------------------------------------------===//

#include "ElfFile.h"
#include "FatBinary.h"

#include <cstdint>
#include <cstdlib>

using namespace torchlint::doctor;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  MemorySource Bytes(std::string(reinterpret_cast<const char *>(Data), Size));
  sniffFormat(Bytes);
  readElfIdentity(Bytes);
  std::string Error;
  std::optional<ElfFile> Elf = readElf(Bytes, Error);
  if (!Elf) {
    if (Error.empty())
      std::abort();
    // The same bytes as one fat binary section.
    readFatBinaries(Bytes, 0, Bytes.size(), 4096);
    return 0;
  }
  for (const std::string &Name : Elf->Needed)
    if (Name.size() > 4096)
      std::abort();
  GpuCode Code = readGpuCode(Bytes, *Elf);
  for (int Architecture : Code.Sass)
    canRun(Code, Architecture / 10, Architecture % 10);
  describe(Code);
  return 0;
}
