//===--- LibraryResolver.cpp - Which libraries a program loads ------------===//
//
// The search order and the ld.so cache format follow glibc (elf/dl-load.c,
// elf/dl-cache.c, sysdeps/generic/dl-cache.h); see LibraryResolver.h for
// what is not modelled.
//
//===----------------------------------------------------------------------===//

#include "LibraryResolver.h"
#include "DoctorText.h"

#include <cctype>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>

#include <unistd.h>

namespace torchlint::doctor {

namespace {

std::string absolute(const std::string &Path) {
  if (!Path.empty() && Path[0] == '/')
    return Path;
  char Folder[PATH_MAX];
  if (!getcwd(Folder, sizeof(Folder)))
    return Path;
  return std::string(Folder) + "/" + Path;
}

std::string multiarchTriple(std::uint16_t Machine) {
  switch (Machine) {
  case MachineX86_64:
    return "x86_64-linux-gnu";
  case MachineAArch64:
    return "aarch64-linux-gnu";
  case MachinePowerPc64:
    return "powerpc64le-linux-gnu";
  default:
    return "";
  }
}

std::string platformName(std::uint16_t Machine) {
  switch (Machine) {
  case MachineX86_64:
    return "x86_64";
  case MachineAArch64:
    return "aarch64";
  case MachinePowerPc64:
    return "powerpc64le";
  default:
    return "";
  }
}

/// The architecture bits (dl-cache.h's FLAG_*_LIB64) ld.so accepts for a
/// cache entry on \p Machine; -1 when any entry will do.
int cacheArchitectureFlag(std::uint16_t Machine) {
  switch (Machine) {
  case MachineX86_64:
    return 0x0300;
  case MachineAArch64:
    return 0x0a00;
  case MachinePowerPc64:
    return 0x0500;
  default:
    return -1;
  }
}

/// $ORIGIN, $LIB and $PLATFORM, bare or in braces.
std::string expandTokens(std::string Entry, const std::string &Origin,
                         std::uint16_t Machine) {
  const std::pair<std::string, std::string> Tokens[] = {
      {"ORIGIN", Origin},
      {"LIB", "lib/" + multiarchTriple(Machine)},
      {"PLATFORM", platformName(Machine)}};
  std::string Out;
  for (std::size_t I = 0; I < Entry.size();) {
    bool Replaced = false;
    if (Entry[I] == '$') {
      for (const auto &[Token, Value] : Tokens) {
        if (Entry.compare(I + 1, Token.size() + 2, "{" + Token + "}") == 0) {
          Out += Value;
          I += Token.size() + 3;
          Replaced = true;
          break;
        }
        std::size_t After = I + 1 + Token.size();
        if (Entry.compare(I + 1, Token.size(), Token) == 0 &&
            (After == Entry.size() ||
             !(std::isalnum(static_cast<unsigned char>(Entry[After])) ||
               Entry[After] == '_'))) {
          Out += Value;
          I = After;
          Replaced = true;
          break;
        }
      }
    }
    if (!Replaced)
      Out += Entry[I++];
  }
  return Out;
}

/// A colon-separated list as ld.so splits it: an empty element is the
/// current folder. LD_LIBRARY_PATH also takes semicolons.
std::vector<std::string> splitPathList(const std::string &List,
                                       bool SemicolonsToo) {
  std::vector<std::string> Folders;
  std::string Current;
  for (char C : List) {
    if (C == ':' || (SemicolonsToo && C == ';')) {
      Folders.push_back(Current.empty() ? "." : Current);
      Current.clear();
    } else {
      Current += C;
    }
  }
  Folders.push_back(Current.empty() ? "." : Current);
  return Folders;
}

constexpr std::uint64_t LargestCache = 64u << 20;

struct LoadedObject {
  std::string Path;
  std::string DisplayName;
  std::string Origin;
  ElfFile Elf;
  int Loader = -1;
};

class Resolver {
public:
  Resolver(const LoaderSettings &Settings, std::uint16_t Machine)
      : Settings(Settings), Machine(Machine) {
    Folders = Settings.DefaultFolders.empty() ? defaultFolders(Machine)
                                              : Settings.DefaultFolders;
    // Read whole, once: the parser reads the string table a byte at a time.
    std::string Error;
    if (std::unique_ptr<FileSource> Cache =
            FileSource::open(Settings.CacheFile, Error);
        Cache && Cache->size() <= LargestCache) {
      std::string Bytes(static_cast<std::size_t>(Cache->size()), '\0');
      if (Cache->read(0, Bytes.data(), Bytes.size()))
        CacheEntries =
            parseLoaderCache(MemorySource(std::move(Bytes)), Machine);
    }
  }

  LoadedProgram run(const std::string &ProgramPath, const ElfFile &Program) {
    LoadedObject Root;
    Root.Path = ProgramPath;
    Root.DisplayName = fileNameOf(ProgramPath);
    char Real[PATH_MAX];
    // The program's $ORIGIN comes from /proc/self/exe: links resolved.
    Root.Origin =
        folderOf(realpath(ProgramPath.c_str(), Real) ? std::string(Real)
                                                     : absolute(ProgramPath));
    Root.Elf = Program;
    std::string OpenError;
    if (std::unique_ptr<FileSource> Self =
            FileSource::open(ProgramPath, OpenError))
      LoadedFiles.insert(Self->identity());
    Objects.push_back(Root);
    remember(0, ProgramPath);
    // The dynamic loader named in PT_INTERP is mapped before anything else,
    // and libc's DT_NEEDED on it is satisfied by that mapping.
    if (Program.Interpreter)
      Known.insert(fileNameOf(*Program.Interpreter));

    LoadedProgram Result;
    for (std::size_t Next = 0; Next < Objects.size(); ++Next) {
      // Copied: Objects grows while the names are looked up.
      std::vector<std::string> Needed = Objects[Next].Elf.Needed;
      for (const std::string &Name : Needed) {
        if (Known.count(Name) || Missing.count(Name))
          continue;
        if (Objects.size() >= Settings.MostObjects) {
          Result.Truncated = true;
          return Result;
        }
        LoadedLibrary Library = lookUp(Name, static_cast<int>(Next));
        if (Lookups > MostLookups) {
          Result.Truncated = true;
          return Result;
        }
        if (Library.Found && LoadedFiles.count(Library.FileIdentity)) {
          // The same file under another name: ld.so maps it once.
          Known.insert(Name);
          continue;
        }
        if (Library.Found) {
          LoadedFiles.insert(Library.FileIdentity);
          LoadedObject Object;
          Object.Path = Library.Path;
          Object.DisplayName = Name;
          Object.Origin = folderOf(absolute(Library.Path));
          Object.Elf = Library.Elf;
          Object.Loader = static_cast<int>(Next);
          Objects.push_back(Object);
          remember(Objects.size() - 1, Name);
        } else {
          Missing.insert(Name);
        }
        Result.Libraries.push_back(std::move(Library));
      }
    }
    return Result;
  }

private:
  void remember(std::size_t Index, const std::string &RequestedName) {
    Known.insert(RequestedName);
    if (Objects[Index].Elf.Soname)
      Known.insert(*Objects[Index].Elf.Soname);
  }

  /// What ld.so makes of a candidate file: maps it, passes over it (no
  /// such file; another class or machine), or stops the program (a file
  /// that is there but is no usable ELF library).
  enum class Verdict { Map, PassOver, Stop };

  Verdict accept(const std::string &Path, LoadedLibrary &Library,
                 std::string &Why) {
    if (++Lookups > MostLookups) {
      Why =
          "the search stopped after " + std::to_string(MostLookups) + " files";
      return Verdict::Stop;
    }
    std::string Error;
    std::unique_ptr<FileSource> File = FileSource::open(Path, Error);
    if (!File)
      return Verdict::PassOver;
    std::optional<ElfFile> Identity = readElfIdentity(*File);
    if (!Identity) {
      Why = "not an ELF file (ld.so stops with \"invalid ELF header\")";
      return Verdict::Stop;
    }
    if (!Identity->Is64Bit || Identity->Machine != Machine) {
      Why = std::string(Identity->Is64Bit ? "" : "32-bit, ") + "for " +
            machineName(Identity->Machine);
      return Verdict::PassOver;
    }
    std::optional<ElfFile> Elf = readElf(*File, Error);
    if (!Elf) {
      Why = Error + " (ld.so stops there)";
      return Verdict::Stop;
    }
    Library.Elf = std::move(*Elf);
    Library.FileIdentity = File->identity();
    return Verdict::Map;
  }

  /// True when the search for Library is over: found, or stopped.
  bool tryPath(const std::string &Path, const std::string &Where,
               const std::string &Mechanism, LoadedLibrary &Library,
               std::set<std::string> &Tried) {
    if (!Tried.insert(Path).second)
      return false; // A folder named twice is searched once, as ld.so does.
    std::string Why;
    Verdict Result = accept(Path, Library, Why);
    if (Result == Verdict::Map) {
      Library.Found = true;
      Library.Path = Path;
      Library.FoundThrough = Mechanism;
      return true;
    }
    std::string Said = Where;
    if (!Why.empty())
      Said +=
          ": " + Path + (Result == Verdict::Stop ? " is " : " skipped, ") + Why;
    if (Library.Searched.size() < MostSearchedNamed)
      Library.Searched.push_back(Said);
    else if (Library.Searched.size() == MostSearchedNamed)
      Library.Searched.push_back("... and more");
    return Result == Verdict::Stop;
  }

  bool tryFolder(const std::string &Folder, const std::string &Mechanism,
                 LoadedLibrary &Library, std::set<std::string> &Tried) {
    std::string Path =
        (Folder.empty() || Folder.back() == '/' ? Folder : Folder + "/") +
        Library.Name;
    return tryPath(Path, Folder + " (" + Mechanism + ")", Mechanism, Library,
                   Tried);
  }

  bool tryList(const std::string &List, const std::string &Origin,
               const std::string &Mechanism, bool SemicolonsToo,
               LoadedLibrary &Library, std::set<std::string> &Tried) {
    for (const std::string &Entry : splitPathList(List, SemicolonsToo))
      if (tryFolder(expandTokens(Entry, Origin, Machine), Mechanism, Library,
                    Tried))
        return true;
    return false;
  }

  LoadedLibrary lookUp(const std::string &Name, int Requester) {
    LoadedLibrary Library;
    Library.Name = Name;
    const LoadedObject &Asker = Objects[Requester];
    Library.NeededBy = Asker.DisplayName;
    std::set<std::string> Tried;

    if (Name.find('/') != std::string::npos) {
      tryPath(Name, Name + " (its path in DT_NEEDED)", "its path in DT_NEEDED",
              Library, Tried);
      return Library;
    }

    // A DT_RPATH counts only in objects without DT_RUNPATH, and the chain of
    // loaders only when the asker itself has no DT_RUNPATH.
    if (!Asker.Elf.RunPath) {
      for (int At = Requester; At >= 0; At = Objects[At].Loader) {
        const LoadedObject &Object = Objects[At];
        if (Object.Elf.RPath && !Object.Elf.RunPath &&
            tryList(*Object.Elf.RPath, Object.Origin,
                    "RPATH of " + Object.DisplayName, false, Library, Tried))
          return Library;
      }
    }
    // ld.so expands $ORIGIN in LD_LIBRARY_PATH with the program's folder.
    if (!Settings.LibraryPath.empty() &&
        tryList(Settings.LibraryPath, Objects[0].Origin, "LD_LIBRARY_PATH",
                true, Library, Tried))
      return Library;
    if (Asker.Elf.RunPath &&
        tryList(*Asker.Elf.RunPath, Asker.Origin,
                "RUNPATH of " + Asker.DisplayName, false, Library, Tried))
      return Library;
    if (CacheEntries) {
      auto [Begin, End] = CacheEntries->equal_range(Name);
      for (auto It = Begin; It != End; ++It)
        if (tryPath(It->second, It->second + " (ld.so cache)", "ld.so cache",
                    Library, Tried))
          return Library;
      if (Begin == End && Library.Searched.size() < MostSearchedNamed)
        Library.Searched.push_back(Settings.CacheFile + " (ld.so cache)");
    }
    for (const std::string &Folder : Folders)
      if (tryFolder(Folder, "default folder", Library, Tried))
        return Library;
    return Library;
  }

  const LoaderSettings &Settings;
  std::uint16_t Machine;
  std::vector<std::string> Folders;
  std::optional<std::multimap<std::string, std::string>> CacheEntries;
  std::vector<LoadedObject> Objects;
  std::set<std::string> Known;
  std::set<std::string> Missing;
  std::set<std::pair<std::uint64_t, std::uint64_t>> LoadedFiles;
  /// Files opened so far: a hostile program's thousands of names times
  /// thousands of folders must end.
  std::size_t Lookups = 0;
  static constexpr std::size_t MostLookups = 100000;
  static constexpr std::size_t MostSearchedNamed = 64;
};

} // namespace

namespace {
/// The "system search path" lines of `ld.so --help` (glibc 2.33 and newer),
/// from the loader this doctor itself runs with: the user's program names
/// its own, which is not run, since the program is not trusted.
std::vector<std::string> systemSearchPath(std::uint16_t Machine) {
  if (Machine != hostMachine())
    return {};
  std::string Error;
  std::unique_ptr<FileSource> Self = FileSource::open("/proc/self/exe", Error);
  std::optional<ElfFile> Elf = Self ? readElf(*Self, Error) : std::nullopt;
  if (!Elf || !Elf->Interpreter || Elf->Interpreter->empty() ||
      Elf->Interpreter->front() != '/' ||
      Elf->Interpreter->find('\'') != std::string::npos)
    return {};
  std::vector<std::string> Folders;
  std::string Command = "'" + *Elf->Interpreter + "' --help 2>/dev/null";
  FILE *Pipe = popen(Command.c_str(), "r");
  if (!Pipe)
    return {};
  char Line[4096];
  const std::string Suffix = " (system search path)";
  while (fgets(Line, sizeof(Line), Pipe)) {
    std::string Text(Line);
    while (!Text.empty() && (Text.back() == '\n' || Text.back() == ' '))
      Text.pop_back();
    std::size_t Start = Text.find_first_not_of(' ');
    if (Start == std::string::npos || Text.size() <= Suffix.size() ||
        Text.compare(Text.size() - Suffix.size(), Suffix.size(), Suffix) != 0)
      continue;
    Folders.push_back(Text.substr(Start, Text.size() - Suffix.size() - Start));
  }
  pclose(Pipe);
  return Folders;
}
} // namespace

std::vector<std::string> defaultFolders(std::uint16_t Machine) {
  static const std::vector<std::string> System =
      systemSearchPath(hostMachine());
  if (Machine == hostMachine() && !System.empty())
    return System;
  std::string Triple = multiarchTriple(Machine);
  std::vector<std::string> Folders;
  if (!Triple.empty())
    Folders = {"/lib/" + Triple, "/usr/lib/" + Triple};
  if (Machine == MachineX86_64 || Machine == MachinePowerPc64 ||
      Machine == MachineAArch64) {
    Folders.push_back("/lib64");
    Folders.push_back("/usr/lib64");
  }
  Folders.push_back("/lib");
  Folders.push_back("/usr/lib");
  return Folders;
}

std::optional<std::multimap<std::string, std::string>>
parseLoaderCache(const ByteSource &Bytes, std::uint16_t Machine) {
  static const char OldMagic[] = "ld.so-1.7.0";
  static const char NewMagic[] = "glibc-ld.so.cache1.1";
  constexpr std::size_t NewHeaderSize = 48;
  constexpr std::size_t NewEntrySize = 24;
  constexpr std::uint32_t MostEntries = 1 << 20;

  auto u32 = [&](std::uint64_t Offset) -> std::optional<std::uint32_t> {
    unsigned char B[4];
    if (!Bytes.read(Offset, B, 4))
      return std::nullopt;
    return static_cast<std::uint32_t>(littleEndian(B, 4));
  };

  std::uint64_t Start = 0;
  char Magic[20];
  if (Bytes.read(0, Magic, sizeof(OldMagic) - 1) &&
      std::memcmp(Magic, OldMagic, sizeof(OldMagic) - 1) == 0) {
    // The old table (12-byte entries after a 16-byte header), then the new
    // one, aligned to 8 bytes.
    std::optional<std::uint32_t> OldCount = u32(12);
    if (!OldCount || *OldCount > MostEntries)
      return std::nullopt;
    Start = (16 + std::uint64_t(*OldCount) * 12 + 7) & ~std::uint64_t(7);
  }
  if (!Bytes.read(Start, Magic, sizeof(NewMagic) - 1) ||
      std::memcmp(Magic, NewMagic, sizeof(NewMagic) - 1) != 0)
    return std::nullopt;
  std::optional<std::uint32_t> Count = u32(Start + 20);
  if (!Count || *Count > MostEntries)
    return std::nullopt;
  int Wanted = cacheArchitectureFlag(Machine);

  auto StringAt = [&](std::uint32_t Offset) -> std::optional<std::string> {
    // Offsets count from the new header's first byte.
    std::string Text;
    for (std::uint64_t At = Start + Offset; Text.size() < 4096; ++At) {
      char C;
      if (!Bytes.read(At, &C, 1))
        return std::nullopt;
      if (C == '\0')
        return Text;
      Text += C;
    }
    return std::nullopt;
  };

  std::multimap<std::string, std::string> Entries;
  for (std::uint32_t I = 0; I < *Count; ++I) {
    std::uint64_t At = Start + NewHeaderSize + std::uint64_t(I) * NewEntrySize;
    std::optional<std::uint32_t> Flags = u32(At), Key = u32(At + 4),
                                 Value = u32(At + 8);
    if (!Flags || !Key || !Value)
      return std::nullopt;
    bool Libc6 = (*Flags & 0xff) == 0x03;
    if (!Libc6 || (Wanted >= 0 && int(*Flags & 0xff00) != Wanted))
      continue;
    std::optional<std::string> Name = StringAt(*Key), Path = StringAt(*Value);
    if (!Name || !Path)
      return std::nullopt;
    Entries.emplace(*Name, *Path);
  }
  return Entries;
}

const LoadedLibrary *LoadedProgram::find(const std::string &Soname) const {
  for (const LoadedLibrary &L : Libraries)
    if (L.Found && (L.Name == Soname || L.Elf.Soname == Soname))
      return &L;
  return nullptr;
}

LoadedProgram resolveLibraries(const std::string &ProgramPath,
                               const ElfFile &Program,
                               const LoaderSettings &Settings) {
  return Resolver(Settings, Program.Machine).run(ProgramPath, Program);
}

std::string libraryStem(const std::string &FileName) {
  std::string Name = fileNameOf(FileName);
  std::size_t So = Name.find(".so");
  return So == std::string::npos ? Name : Name.substr(0, So);
}

} // namespace torchlint::doctor
