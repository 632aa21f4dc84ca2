//===--- ElfFile.h - What the dynamic loader reads of a program -*- C++ -*-===//
//
// The parts of an ELF file that decide which libraries a program loads: its
// class and machine, DT_NEEDED, DT_SONAME, DT_RPATH and DT_RUNPATH (read from
// the program headers, as ld.so reads them), and its section table, where a
// CUDA library keeps its GPU code (.nv_fatbin).
//
// Everything comes from untrusted bytes through a ByteSource: every offset
// and size is checked before it is used, and the tables are capped, so a
// truncated or hostile file is one error message, never a crash or a long
// read. Nothing here needs libtorch; the fuzzers build it alone.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_ELFFILE_H
#define TORCHLINT_RUNTIME_ELFFILE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torchlint::doctor {

/// Random access to a file's bytes, so that a 2 GB libtorch_cuda.so is read
/// a header at a time.
class ByteSource {
public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  /// Copies \p Size bytes at \p Offset; false when any of them is missing.
  virtual bool read(std::uint64_t Offset, void *Out,
                    std::size_t Size) const = 0;
};

/// Bytes in memory (the fuzzers, crafted test files).
class MemorySource : public ByteSource {
public:
  explicit MemorySource(std::string Bytes) : Bytes(std::move(Bytes)) {}
  std::uint64_t size() const override { return Bytes.size(); }
  bool read(std::uint64_t Offset, void *Out, std::size_t Size) const override;

private:
  std::string Bytes;
};

/// A file read with pread; the descriptor closes with the object.
class FileSource : public ByteSource {
public:
  /// nullptr and \p Error set (strerror text) when it cannot be opened.
  static std::unique_ptr<FileSource> open(const std::string &Path,
                                          std::string &Error);
  ~FileSource() override;
  std::uint64_t size() const override { return Size; }
  bool read(std::uint64_t Offset, void *Out, std::size_t Size) const override;
  /// The file's device and inode: two paths of one file are one library
  /// to the dynamic loader.
  std::pair<std::uint64_t, std::uint64_t> identity() const { return Identity; }

private:
  FileSource(int Descriptor, std::uint64_t Size,
             std::pair<std::uint64_t, std::uint64_t> Identity)
      : Descriptor(Descriptor), Size(Size), Identity(Identity) {}
  int Descriptor;
  std::uint64_t Size;
  std::pair<std::uint64_t, std::uint64_t> Identity;
};

/// The unsigned little-endian integer of \p Count bytes (at most 8) at
/// \p Bytes, whatever the host's byte order.
std::uint64_t littleEndian(const unsigned char *Bytes, int Count);

/// What the first bytes of a file say it is.
enum class FileFormat { Elf, WindowsPe, Script, Other };

FileFormat sniffFormat(const ByteSource &Bytes);

/// ELF e_type values of linked programs and libraries.
constexpr std::uint16_t TypeExecutable = 2;
constexpr std::uint16_t TypeShared = 3;

/// ELF e_machine values the doctor names.
constexpr std::uint16_t MachineX86 = 3;
constexpr std::uint16_t MachineArm = 40;
constexpr std::uint16_t MachineX86_64 = 62;
constexpr std::uint16_t MachineAArch64 = 183;
constexpr std::uint16_t MachinePowerPc64 = 21;

/// The machine this doctor was built for.
std::uint16_t hostMachine();
/// "x86-64", "AArch64", ... or "machine 1234".
std::string machineName(std::uint16_t Machine);

struct ElfSection {
  std::string Name;
  std::uint32_t Type = 0;
  std::uint64_t Offset = 0;
  std::uint64_t Size = 0;
};

struct ElfFile {
  bool Is64Bit = false;
  bool LittleEndian = true;
  std::uint16_t Machine = 0;
  /// ET_EXEC (2) or ET_DYN (3), the latter for libraries and PIE programs.
  std::uint16_t Type = 0;
  std::vector<std::string> Needed;
  std::optional<std::string> Soname;
  std::optional<std::string> RunPath;
  std::optional<std::string> RPath;
  std::optional<std::string> Interpreter;
  std::vector<ElfSection> Sections;

  const ElfSection *section(const std::string &Name) const;
};

/// The class, byte order and machine alone, for a loader that skips
/// libraries of another architecture; nullopt for a file too short or not
/// ELF.
std::optional<ElfFile> readElfIdentity(const ByteSource &Bytes);

/// The whole of what ElfFile holds. Only 64-bit little-endian files are
/// read in full; any other file, and any inconsistency, sets \p Error to one
/// sentence ("it is a 32-bit ELF file", "its program headers lie past the
/// end of the file") and returns nullopt.
std::optional<ElfFile> readElf(const ByteSource &Bytes, std::string &Error);

} // namespace torchlint::doctor

#endif // TORCHLINT_RUNTIME_ELFFILE_H
