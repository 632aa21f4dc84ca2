//===--- ElfFile.cpp - What the dynamic loader reads of a program ---------===//
//
// The layouts are those of the System V ABI (elf.h): the 64-byte file
// header, 56-byte program headers, 64-byte section headers and 16-byte
// dynamic entries. Integers are decoded byte by byte, so the reader does not
// depend on the host's byte order or alignment.
//
//===----------------------------------------------------------------------===//

#include "ElfFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace torchlint::doctor {

bool MemorySource::read(std::uint64_t Offset, void *Out,
                        std::size_t Size) const {
  if (Offset > Bytes.size() || Size > Bytes.size() - Offset)
    return false;
  std::memcpy(Out, Bytes.data() + Offset, Size);
  return true;
}

std::unique_ptr<FileSource> FileSource::open(const std::string &Path,
                                             std::string &Error) {
  int Descriptor = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Descriptor < 0) {
    Error = std::strerror(errno);
    return nullptr;
  }
  struct stat Status {};
  if (fstat(Descriptor, &Status) != 0 || !S_ISREG(Status.st_mode)) {
    Error = S_ISDIR(Status.st_mode) ? "it is a directory" : "not a file";
    ::close(Descriptor);
    return nullptr;
  }
  return std::unique_ptr<FileSource>(
      new FileSource(Descriptor, static_cast<std::uint64_t>(Status.st_size),
                     {static_cast<std::uint64_t>(Status.st_dev),
                      static_cast<std::uint64_t>(Status.st_ino)}));
}

FileSource::~FileSource() { ::close(Descriptor); }

bool FileSource::read(std::uint64_t Offset, void *Out,
                      std::size_t Count) const {
  if (Offset > Size || Count > Size - Offset)
    return false;
  auto *Target = static_cast<char *>(Out);
  while (Count > 0) {
    ssize_t Got = pread(Descriptor, Target, Count, static_cast<off_t>(Offset));
    if (Got < 0 && errno == EINTR)
      continue;
    if (Got <= 0)
      return false;
    Target += Got;
    Offset += static_cast<std::uint64_t>(Got);
    Count -= static_cast<std::size_t>(Got);
  }
  return true;
}

FileFormat sniffFormat(const ByteSource &Bytes) {
  unsigned char Head[4] = {};
  if (!Bytes.read(0, Head, Bytes.size() < 4 ? Bytes.size() : 4))
    return FileFormat::Other;
  if (Bytes.size() >= 4 && Head[0] == 0x7f && Head[1] == 'E' &&
      Head[2] == 'L' && Head[3] == 'F')
    return FileFormat::Elf;
  if (Bytes.size() >= 2 && Head[0] == 'M' && Head[1] == 'Z')
    return FileFormat::WindowsPe;
  if (Bytes.size() >= 2 && Head[0] == '#' && Head[1] == '!')
    return FileFormat::Script;
  return FileFormat::Other;
}

std::uint16_t hostMachine() {
#if defined(__x86_64__)
  return MachineX86_64;
#elif defined(__aarch64__)
  return MachineAArch64;
#elif defined(__powerpc64__)
  return MachinePowerPc64;
#elif defined(__i386__)
  return MachineX86;
#elif defined(__arm__)
  return MachineArm;
#else
  return 0;
#endif
}

std::string machineName(std::uint16_t Machine) {
  switch (Machine) {
  case MachineX86:
    return "x86 (32-bit)";
  case MachineArm:
    return "ARM (32-bit)";
  case MachineX86_64:
    return "x86-64";
  case MachineAArch64:
    return "AArch64";
  case MachinePowerPc64:
    return "PowerPC 64";
  default:
    return "machine " + std::to_string(Machine);
  }
}

const ElfSection *ElfFile::section(const std::string &Name) const {
  for (const ElfSection &S : Sections)
    if (S.Name == Name)
      return &S;
  return nullptr;
}

std::uint64_t littleEndian(const unsigned char *Bytes, int Count) {
  std::uint64_t Value = 0;
  for (int I = Count - 1; I >= 0; --I)
    Value = (Value << 8) | Bytes[I];
  return Value;
}

namespace {

std::uint16_t u16(const unsigned char *B) {
  return static_cast<std::uint16_t>(littleEndian(B, 2));
}
std::uint32_t u32(const unsigned char *B) {
  return static_cast<std::uint32_t>(littleEndian(B, 4));
}
std::uint64_t u64(const unsigned char *B) { return littleEndian(B, 8); }

constexpr std::uint32_t ProgramLoad = 1;
constexpr std::uint32_t ProgramDynamic = 2;
constexpr std::uint32_t ProgramInterpreter = 3;
constexpr std::int64_t DynamicNeeded = 1;
constexpr std::int64_t DynamicStringTable = 5;
constexpr std::int64_t DynamicStringSize = 10;
constexpr std::int64_t DynamicSoname = 14;
constexpr std::int64_t DynamicRPath = 15;
constexpr std::int64_t DynamicRunPath = 29;

/// Longer names than this are not library names; stopping there keeps a
/// file without terminators from being read to its end.
constexpr std::size_t LongestString = 4096;
constexpr std::size_t MostDynamicEntries = 1 << 16;
constexpr std::size_t MostSections = 1 << 20;
constexpr std::uint64_t LargestNameTable = 64u << 20;

struct Segment {
  std::uint32_t Type;
  std::uint64_t Offset, Address, FileSize;
};

/// A NUL-terminated string inside [TableOffset, TableOffset + TableSize).
std::optional<std::string> stringAt(const ByteSource &Bytes,
                                    std::uint64_t TableOffset,
                                    std::uint64_t TableSize,
                                    std::uint64_t Index) {
  if (Index >= TableSize || TableOffset > Bytes.size() ||
      Index > Bytes.size() - TableOffset)
    return std::nullopt;
  std::uint64_t Limit =
      std::min<std::uint64_t>(TableSize - Index, LongestString + 1);
  std::string Text(static_cast<std::size_t>(Limit), '\0');
  if (!Bytes.read(TableOffset + Index, Text.data(), Text.size())) {
    // The table may claim more than the file holds; read what is there.
    std::uint64_t Start = TableOffset + Index;
    if (Start >= Bytes.size())
      return std::nullopt;
    Text.resize(static_cast<std::size_t>(
        std::min<std::uint64_t>(Limit, Bytes.size() - Start)));
    if (!Bytes.read(Start, Text.data(), Text.size()))
      return std::nullopt;
  }
  std::size_t End = Text.find('\0');
  if (End == std::string::npos)
    return std::nullopt;
  Text.resize(End);
  return Text;
}

bool readProgramHeaders(const ByteSource &Bytes, const unsigned char *Header,
                        std::vector<Segment> &Segments, std::string &Error) {
  std::uint64_t Offset = u64(Header + 32);
  std::uint16_t EntrySize = u16(Header + 54);
  std::uint32_t Count = u16(Header + 56);
  if (Count == 0)
    return true;
  // PN_XNUM (0xffff) would put the real count in the first section header;
  // glibc's loader does not read it either, and 65535 segments are already
  // far more than any linker writes.
  if (EntrySize < 56) {
    Error = "its program headers are " + std::to_string(EntrySize) +
            " bytes long, not 56";
    return false;
  }
  if (Offset > Bytes.size() ||
      std::uint64_t(Count) * EntrySize > Bytes.size() - Offset) {
    Error = "its program headers lie past the end of the file (truncated?)";
    return false;
  }
  for (std::uint32_t I = 0; I < Count; ++I) {
    unsigned char Entry[56];
    if (!Bytes.read(Offset + std::uint64_t(I) * EntrySize, Entry,
                    sizeof(Entry))) {
      Error = "its program headers lie past the end of the file (truncated?)";
      return false;
    }
    Segments.push_back(
        {u32(Entry), u64(Entry + 8), u64(Entry + 16), u64(Entry + 32)});
  }
  return true;
}

/// The file offset of a virtual address, through the PT_LOAD segments.
std::optional<std::uint64_t> fileOffset(const std::vector<Segment> &Segments,
                                        std::uint64_t Address) {
  for (const Segment &S : Segments)
    if (S.Type == ProgramLoad && Address >= S.Address &&
        Address - S.Address < S.FileSize)
      return S.Offset + (Address - S.Address);
  return std::nullopt;
}

bool readDynamic(const ByteSource &Bytes, const std::vector<Segment> &Segments,
                 ElfFile &File, std::string &Error) {
  auto Dynamic =
      std::find_if(Segments.begin(), Segments.end(),
                   [](const Segment &S) { return S.Type == ProgramDynamic; });
  if (Dynamic == Segments.end())
    return true; // A static program: it needs no library.
  std::vector<std::pair<std::int64_t, std::uint64_t>> Entries;
  std::uint64_t Count =
      std::min<std::uint64_t>(Dynamic->FileSize / 16, MostDynamicEntries);
  if (Dynamic->Offset > Bytes.size() ||
      Count * 16 > Bytes.size() - Dynamic->Offset) {
    Error = "its dynamic section lies past the end of the file (truncated?)";
    return false;
  }
  for (std::uint64_t I = 0; I < Count; ++I) {
    unsigned char Entry[16];
    if (!Bytes.read(Dynamic->Offset + I * 16, Entry, sizeof(Entry))) {
      Error = "its dynamic section lies past the end of the file (truncated?)";
      return false;
    }
    auto Tag = static_cast<std::int64_t>(u64(Entry));
    if (Tag == 0)
      break;
    Entries.emplace_back(Tag, u64(Entry + 8));
  }
  std::optional<std::uint64_t> TableAddress, TableSize;
  for (const auto &[Tag, Value] : Entries) {
    if (Tag == DynamicStringTable)
      TableAddress = Value;
    else if (Tag == DynamicStringSize)
      TableSize = Value;
  }
  bool NeedsStrings =
      std::any_of(Entries.begin(), Entries.end(), [](const auto &E) {
        return E.first == DynamicNeeded || E.first == DynamicSoname ||
               E.first == DynamicRPath || E.first == DynamicRunPath;
      });
  if (!NeedsStrings)
    return true;
  std::optional<std::uint64_t> TableOffset =
      TableAddress ? fileOffset(Segments, *TableAddress) : std::nullopt;
  if (!TableOffset || !TableSize) {
    Error = "its dynamic section has no usable string table";
    return false;
  }
  for (const auto &[Tag, Value] : Entries) {
    if (Tag != DynamicNeeded && Tag != DynamicSoname && Tag != DynamicRPath &&
        Tag != DynamicRunPath)
      continue;
    std::optional<std::string> Text =
        stringAt(Bytes, *TableOffset, *TableSize, Value);
    if (!Text) {
      Error = "a name in its dynamic section lies outside its string table";
      return false;
    }
    if (Tag == DynamicNeeded)
      File.Needed.push_back(*Text);
    else if (Tag == DynamicSoname)
      File.Soname = *Text;
    else if (Tag == DynamicRPath)
      File.RPath = *Text;
    else
      File.RunPath = *Text;
  }
  return true;
}

void readInterpreter(const ByteSource &Bytes,
                     const std::vector<Segment> &Segments, ElfFile &File) {
  for (const Segment &S : Segments)
    if (S.Type == ProgramInterpreter)
      File.Interpreter = stringAt(Bytes, S.Offset, S.FileSize, 0);
}

/// Sections matter only for finding GPU code; a file whose section table is
/// damaged still has its libraries, so this never fails the read.
void readSections(const ByteSource &Bytes, const unsigned char *Header,
                  ElfFile &File) {
  std::uint64_t Offset = u64(Header + 40);
  std::uint16_t EntrySize = u16(Header + 58);
  std::uint64_t Count = u16(Header + 60);
  std::uint32_t NamesIndex = u16(Header + 62);
  if (Offset == 0 || EntrySize < 64)
    return;
  unsigned char First[64];
  if (!Bytes.read(Offset, First, sizeof(First)))
    return;
  if (Count == 0)
    Count = u64(First + 32); // More than 0xff00 sections: sh_size of 0.
  if (NamesIndex == 0xffff)
    NamesIndex = u32(First + 40); // SHN_XINDEX: sh_link of section 0.
  Count = std::min<std::uint64_t>(Count, MostSections);
  if (NamesIndex >= Count || Offset > Bytes.size() ||
      Count * EntrySize > Bytes.size() - Offset)
    return;
  std::vector<std::pair<std::uint32_t, ElfSection>> Read;
  for (std::uint64_t I = 0; I < Count; ++I) {
    unsigned char Entry[64];
    if (!Bytes.read(Offset + I * EntrySize, Entry, sizeof(Entry)))
      return;
    Read.push_back(
        {u32(Entry), {"", u32(Entry + 4), u64(Entry + 24), u64(Entry + 32)}});
  }
  // The names are read once: a file of a million sections must not cost a
  // read per name.
  const ElfSection &NameTable = Read[NamesIndex].second;
  if (NameTable.Offset > Bytes.size() ||
      NameTable.Size > Bytes.size() - NameTable.Offset ||
      NameTable.Size > LargestNameTable)
    return;
  std::string Names(static_cast<std::size_t>(NameTable.Size), '\0');
  if (!Bytes.read(NameTable.Offset, Names.data(), Names.size()))
    return;
  for (auto &[NameIndex, Section] : Read) {
    if (NameIndex < Names.size())
      Section.Name = Names.c_str() + NameIndex;
    File.Sections.push_back(std::move(Section));
  }
}

} // namespace

std::optional<ElfFile> readElfIdentity(const ByteSource &Bytes) {
  unsigned char Ident[20];
  if (sniffFormat(Bytes) != FileFormat::Elf ||
      !Bytes.read(0, Ident, sizeof(Ident)))
    return std::nullopt;
  ElfFile File;
  File.Is64Bit = Ident[4] == 2;
  File.LittleEndian = Ident[5] != 2;
  File.Type = File.LittleEndian
                  ? u16(Ident + 16)
                  : static_cast<std::uint16_t>(Ident[16] << 8 | Ident[17]);
  File.Machine = File.LittleEndian
                     ? u16(Ident + 18)
                     : static_cast<std::uint16_t>(Ident[18] << 8 | Ident[19]);
  return File;
}

std::optional<ElfFile> readElf(const ByteSource &Bytes, std::string &Error) {
  std::optional<ElfFile> File = readElfIdentity(Bytes);
  if (!File) {
    Error = sniffFormat(Bytes) == FileFormat::Elf
                ? "it is cut off inside its ELF header (truncated?)"
                : "it is not an ELF file";
    return std::nullopt;
  }
  if (!File->Is64Bit) {
    Error = "it is a 32-bit ELF file (" + machineName(File->Machine) +
            "); libtorch exists for 64-bit programs only";
    return std::nullopt;
  }
  if (!File->LittleEndian) {
    Error = "it is a big-endian ELF file (" + machineName(File->Machine) + ")";
    return std::nullopt;
  }
  unsigned char Header[64];
  if (!Bytes.read(0, Header, sizeof(Header))) {
    Error = "it is cut off inside its ELF header (truncated?)";
    return std::nullopt;
  }
  std::vector<Segment> Segments;
  if (!readProgramHeaders(Bytes, Header, Segments, Error) ||
      !readDynamic(Bytes, Segments, *File, Error))
    return std::nullopt;
  readInterpreter(Bytes, Segments, *File);
  readSections(Bytes, Header, *File);
  return File;
}

} // namespace torchlint::doctor
