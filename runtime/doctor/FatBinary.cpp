//===--- FatBinary.cpp - Which GPUs a CUDA library has code for -----------===//

#include "FatBinary.h"

#include <algorithm>

namespace torchlint::doctor {

namespace {

constexpr std::uint32_t FatBinaryMagic = 0xBA55ED50;
constexpr std::uint16_t EntryPtx = 1;
constexpr std::uint16_t EntrySass = 2;
/// Header bytes the reader needs: kind, version, header size, payload size,
/// and the architecture at byte 28.
constexpr std::size_t EntryFieldsRead = 32;

} // namespace

GpuCode readFatBinaries(const ByteSource &Bytes, std::uint64_t Offset,
                        std::uint64_t Size, std::size_t MostEntries) {
  GpuCode Code;
  std::uint64_t End = Offset + Size;
  if (End < Offset || End > Bytes.size()) {
    Code.Problem = "the GPU code section lies past the end of the file";
    return Code;
  }
  std::uint64_t At = Offset;
  while (At + 16 <= End) {
    unsigned char Header[16];
    if (!Bytes.read(At, Header, sizeof(Header))) {
      Code.Problem = "a fat binary header could not be read";
      return Code;
    }
    auto Magic = static_cast<std::uint32_t>(littleEndian(Header, 4));
    if (Magic == 0) {
      // Sections are padded between fat binaries: skip the zeros a block at
      // a time, and count the blocks as work.
      unsigned char Block[4096];
      while (At < End) {
        std::size_t Size = static_cast<std::size_t>(
            std::min<std::uint64_t>(sizeof(Block), End - At));
        if (!Bytes.read(At, Block, Size)) {
          Code.Problem = "the GPU code section could not be read";
          return Code;
        }
        std::size_t Zeros = 0;
        while (Zeros < Size && Block[Zeros] == 0)
          ++Zeros;
        if (Zeros == Size) {
          At += Size;
          if (++Code.Entries >= MostEntries)
            break;
          continue;
        }
        // Fat binaries start 8-byte aligned.
        std::size_t Skip = Zeros & ~std::size_t(7);
        if (Skip == 0) {
          Code.Problem = "an unknown fat binary header at offset " +
                         std::to_string(At - Offset) + " of the section";
          return Code;
        }
        At += Skip;
        break;
      }
      if (Code.Entries >= MostEntries) {
        Code.Problem = "more than " + std::to_string(MostEntries) +
                       " GPU code entries; the rest were not read";
        return Code;
      }
      continue;
    }
    if (Magic != FatBinaryMagic) {
      Code.Problem = "an unknown fat binary header at offset " +
                     std::to_string(At - Offset) + " of the section";
      return Code;
    }
    std::uint64_t HeaderSize = littleEndian(Header + 6, 2);
    std::uint64_t BodySize = littleEndian(Header + 8, 8);
    std::uint64_t BodyStart = At + HeaderSize;
    if (HeaderSize < 16 || BodyStart > End || BodySize > End - BodyStart) {
      Code.Problem = "a fat binary's size runs past its section";
      return Code;
    }
    std::uint64_t BodyEnd = BodyStart + BodySize;
    for (std::uint64_t Entry = BodyStart; Entry + EntryFieldsRead <= BodyEnd;) {
      if (Code.Entries >= MostEntries) {
        Code.Problem = "more than " + std::to_string(MostEntries) +
                       " GPU code entries; the rest were not read";
        return Code;
      }
      unsigned char Fields[EntryFieldsRead];
      if (!Bytes.read(Entry, Fields, sizeof(Fields))) {
        Code.Problem = "a GPU code entry could not be read";
        return Code;
      }
      auto Kind = static_cast<std::uint16_t>(littleEndian(Fields, 2));
      std::uint64_t EntryHeaderSize = littleEndian(Fields + 4, 4);
      std::uint64_t PayloadSize = littleEndian(Fields + 8, 8);
      auto Architecture = static_cast<int>(littleEndian(Fields + 28, 4));
      if (EntryHeaderSize < EntryFieldsRead ||
          EntryHeaderSize > BodyEnd - Entry ||
          PayloadSize > BodyEnd - Entry - EntryHeaderSize) {
        Code.Problem = "a GPU code entry's size runs past its fat binary";
        return Code;
      }
      ++Code.Entries;
      if (Kind == EntrySass)
        Code.Sass.insert(Architecture);
      else if (Kind == EntryPtx)
        Code.Ptx.insert(Architecture);
      Entry += EntryHeaderSize + PayloadSize;
    }
    At = BodyEnd;
  }
  return Code;
}

GpuCode readGpuCode(const ByteSource &Bytes, const ElfFile &Elf) {
  const ElfSection *Section = Elf.section(".nv_fatbin");
  if (!Section)
    return {};
  return readFatBinaries(Bytes, Section->Offset, Section->Size);
}

bool canRun(const GpuCode &Code, int Major, int Minor) {
  int Capability = Major * 10 + Minor;
  for (int Sass : Code.Sass)
    if (Sass / 10 == Major && Sass % 10 <= Minor)
      return true;
  for (int Ptx : Code.Ptx)
    if (Ptx <= Capability)
      return true;
  return false;
}

std::string describe(const GpuCode &Code) {
  std::string Text;
  for (int Sass : Code.Sass)
    Text +=
        (Text.empty() ? "" : ", ") + std::string("sm_") + std::to_string(Sass);
  for (int Ptx : Code.Ptx)
    Text += (Text.empty() ? "" : ", ") + std::string("compute_") +
            std::to_string(Ptx) + " (PTX)";
  return Text.empty() ? "no GPU code" : Text;
}

} // namespace torchlint::doctor
