//===--- BuildDirectory.cpp - What a configured CMake project links -------===//

#include "BuildDirectory.h"
#include "DoctorText.h"
#include "LibraryResolver.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <cstdio>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

namespace torchlint::doctor {

namespace {

/// Build files are text a generator wrote; anything larger than this is
/// not one, and is not read whole.
constexpr std::size_t LargestBuildFile = 256u << 20;
constexpr std::size_t MostLinkFiles = 10000;
constexpr std::size_t MostFoldersWalked = 100000;

std::optional<std::string> readText(const std::string &Path) {
  struct stat Status {};
  if (stat(Path.c_str(), &Status) != 0 || !S_ISREG(Status.st_mode) ||
      static_cast<std::size_t>(Status.st_size) > LargestBuildFile)
    return std::nullopt;
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::ostringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

bool isFolder(const std::string &Path) {
  struct stat Status {};
  return stat(Path.c_str(), &Status) == 0 && S_ISDIR(Status.st_mode);
}

std::vector<std::string> listFolder(const std::string &Folder) {
  std::vector<std::string> Names;
  if (DIR *Handle = opendir(Folder.c_str())) {
    while (dirent *Entry = readdir(Handle)) {
      std::string Name = Entry->d_name;
      if (Name != "." && Name != "..")
        Names.push_back(Name);
    }
    closedir(Handle);
  }
  std::sort(Names.begin(), Names.end());
  return Names;
}

/// The library a linker argument names, or "" when it names none.
std::string libraryName(const std::string &Argument) {
  if (startsWith(Argument, "-l:"))
    return libraryName(Argument.substr(3));
  if (startsWith(Argument, "-l"))
    return Argument.substr(2);
  if (startsWith(Argument, "-"))
    return "";
  std::string File = Argument.substr(Argument.rfind('/') + 1);
  if (!startsWith(File, "lib"))
    return "";
  bool Shared = File.find(".so") != std::string::npos;
  if (!Shared && !endsWith(File, ".a"))
    return "";
  return Shared ? libraryStem(File).substr(3) : File.substr(3, File.size() - 5);
}

/// Whether \p Folder holds a library whose stem is \p Stem.
bool holdsLibrary(const std::string &Folder, const std::string &Stem) {
  for (const std::string &Name : listFolder(Folder))
    if (Name.find(".so") != std::string::npos && libraryStem(Name) == Stem)
      return true;
  return false;
}

std::optional<bool> caffe2UsesCuda(const std::string &TorchDir) {
  std::optional<std::string> Text =
      readText(TorchDir + "/../Caffe2/Caffe2Config.cmake");
  if (!Text)
    return std::nullopt;
  // The generated file guards its CUDA setup with the configure-time value:
  //   if(ON)  # or OFF
  //     # The file public/cuda.cmake exclusively uses CAFFE2_USE_*.
  std::istringstream Lines(*Text);
  std::string Line, LastIf;
  while (std::getline(Lines, Line)) {
    std::string Trimmed = trim(Line);
    if (startsWith(Trimmed, "if("))
      LastIf = Trimmed;
    if (contains(Trimmed, "public/cuda.cmake") &&
        startsWith(Trimmed, "include(")) {
      if (LastIf == "if(ON)")
        return true;
      if (LastIf == "if(OFF)")
        return false;
      return std::nullopt;
    }
  }
  return std::nullopt; // A layout this reader does not know.
}

void findTorchLibraries(const std::map<std::string, std::string> &Cache,
                        BuildFolder &Build) {
  auto Found = [&](const std::string &Key) -> std::string {
    auto It = Cache.find(Key);
    if (It == Cache.end() || It->second.empty() ||
        endsWith(It->second, "NOTFOUND"))
      return "";
    return It->second;
  };
  Build.TorchDir = Found("Torch_DIR");
  std::vector<std::string> Candidates;
  for (const char *Key : {"TORCH_LIBRARY", "c10_LIBRARY", "C10_LIBRARY"})
    if (std::string Library = Found(Key); !Library.empty())
      Candidates.push_back(folderOf(Library));
  if (!Build.TorchDir.empty()) {
    // A download or pip's torch: <prefix>/share/cmake/Torch and <prefix>/lib;
    // a multiarch package: <libdir>/cmake/Torch.
    Candidates.push_back(Build.TorchDir + "/../../../lib");
    Candidates.push_back(Build.TorchDir + "/../..");
    Build.ConfigUsesCuda = caffe2UsesCuda(Build.TorchDir);
  }
  for (const std::string &Folder : Candidates)
    if (holdsLibrary(Folder, "libtorch_cpu") ||
        holdsLibrary(Folder, "libtorch")) {
      char Real[4096];
      Build.TorchLibraryFolder =
          realpath(Folder.c_str(), Real) ? std::string(Real) : Folder;
      return;
    }
}

/// ninja's escapes in a variable's value: $$, "$ " and "$:".
std::string unescapeNinja(const std::string &Value) {
  std::string Out;
  for (std::size_t I = 0; I < Value.size(); ++I) {
    if (Value[I] == '$' && I + 1 < Value.size()) {
      Out += Value[++I];
      continue;
    }
    Out += Value[I];
  }
  return Out;
}

bool isLinkerRule(const std::string &Rule) {
  return contains(Rule, "_EXECUTABLE_LINKER__") ||
         contains(Rule, "_SHARED_LIBRARY_LINKER__") ||
         contains(Rule, "_MODULE_LIBRARY_LINKER__");
}

/// Not through symbolic links: a link to a folder above would walk the tree
/// again at every level.
bool isRealFolder(const std::string &Path) {
  struct stat Status {};
  return lstat(Path.c_str(), &Status) == 0 && S_ISDIR(Status.st_mode);
}

void collectLinkFiles(const std::string &Folder, int Depth,
                      std::vector<std::string> &Files, std::size_t &Folders) {
  if (Depth > 12 || Files.size() >= MostLinkFiles ||
      ++Folders > MostFoldersWalked)
    return;
  for (const std::string &Name : listFolder(Folder)) {
    std::string Path = Folder + "/" + Name;
    if (Name == "CMakeScratch" || Name == "CMakeTmp" || Name == ".cmake" ||
        !isRealFolder(Path))
      continue;
    if (endsWith(Name, ".dir")) {
      if (readText(Path + "/link.txt"))
        Files.push_back(Path + "/link.txt");
      continue;
    }
    collectLinkFiles(Path, Depth + 1, Files, Folders);
  }
}

} // namespace

std::optional<bool> compilerAddsAsNeeded(const std::string &Compiler) {
  if (Compiler.empty() || Compiler[0] != '/' ||
      Compiler.find('\'') != std::string::npos ||
      access(Compiler.c_str(), X_OK) != 0)
    return std::nullopt;
  // -### prints the commands the driver would run, and runs none of them.
  std::string Command =
      "'" + Compiler + "' -### -x c /dev/null -o /dev/null 2>&1";
  FILE *Pipe = popen(Command.c_str(), "r");
  if (!Pipe)
    return std::nullopt;
  std::string Output;
  char Buffer[4096];
  while (std::size_t Read = fread(Buffer, 1, sizeof(Buffer), Pipe))
    if (Output.size() < (1u << 20))
      Output.append(Buffer, Read);
  if (pclose(Pipe) != 0)
    return std::nullopt;
  // The last command is the link: collect2 (GCC) or ld (clang).
  std::istringstream Lines(Output);
  std::string Line, Link;
  while (std::getline(Lines, Line))
    if (!Line.empty() && Line[0] == ' ')
      Link = Line;
  if (Link.empty())
    return std::nullopt;
  for (const std::string &Word : splitCommandLine(Link))
    if (Word == "--as-needed" || Word == "-as-needed")
      return true;
  return false;
}

std::map<std::string, std::string> parseCMakeCache(const std::string &Text) {
  std::map<std::string, std::string> Entries;
  std::istringstream Lines(Text);
  std::string Line;
  while (std::getline(Lines, Line)) {
    if (!Line.empty() && Line.back() == '\r')
      Line.pop_back();
    if (Line.empty() || Line[0] == '#' || startsWith(Line, "//"))
      continue;
    std::size_t Equals = Line.find('=');
    std::size_t Colon = Line.find(':');
    if (Equals == std::string::npos || Colon == std::string::npos ||
        Colon > Equals || Colon == 0)
      continue;
    std::string Name = Line.substr(0, Colon);
    if (Name.size() > 2 && Name.front() == '"' && Name.back() == '"')
      Name = Name.substr(1, Name.size() - 2);
    Entries[Name] = Line.substr(Equals + 1);
  }
  return Entries;
}

std::vector<std::string> splitCommandLine(const std::string &Line) {
  std::vector<std::string> Words;
  std::string Word;
  bool InWord = false;
  char Quote = 0;
  for (std::size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quote == '\'') {
      if (C == '\'')
        Quote = 0;
      else
        Word += C;
      continue;
    }
    if (C == '\\' && I + 1 < Line.size() &&
        (Quote != '"' ||
         std::string("\"\\$`").find(Line[I + 1]) != std::string::npos)) {
      Word += Line[++I];
      InWord = true;
      continue;
    }
    if (Quote == '"') {
      if (C == '"')
        Quote = 0;
      else
        Word += C;
      continue;
    }
    if (C == '"' || C == '\'') {
      Quote = C;
      InWord = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(C))) {
      if (InWord)
        Words.push_back(Word);
      Word.clear();
      InWord = false;
      continue;
    }
    Word += C;
    InWord = true;
  }
  if (InWord)
    Words.push_back(Word);
  return Words;
}

std::vector<LinkedLibrary> parseLinkCommand(const std::string &Line) {
  std::vector<LinkedLibrary> Libraries;
  bool AsNeeded = false, NoAsNeeded = false;
  auto Take = [&](const std::string &Argument) {
    if (Argument == "--as-needed" || Argument == "-as-needed") {
      AsNeeded = true;
      NoAsNeeded = false;
    } else if (Argument == "--no-as-needed" || Argument == "-no-as-needed") {
      AsNeeded = false;
      NoAsNeeded = true;
    } else if (std::string Name = libraryName(Argument); !Name.empty()) {
      Libraries.push_back({Name, Argument, AsNeeded, NoAsNeeded});
    }
  };
  std::vector<std::string> Words = splitCommandLine(Line);
  for (std::size_t I = 0; I < Words.size(); ++I) {
    const std::string &Word = Words[I];
    if (Word == "-o" || Word == "-L" || Word == "-rpath" || Word == "-MF") {
      ++I; // Its value is an output or a folder, not an input.
      continue;
    }
    if (startsWith(Word, "-Wl,") || startsWith(Word, "-Xlinker")) {
      std::string List = startsWith(Word, "-Wl,")
                             ? Word.substr(4)
                             : (I + 1 < Words.size() ? Words[++I] : "");
      std::istringstream Items(List);
      std::string Item;
      bool SkipValue = false;
      while (std::getline(Items, Item, ',')) {
        if (SkipValue) {
          SkipValue = false;
          continue;
        }
        if (Item == "-rpath" || Item == "-rpath-link" || Item == "-soname" ||
            Item == "-L") {
          SkipValue = true;
          continue;
        }
        Take(Item);
      }
      continue;
    }
    Take(Word);
  }
  return Libraries;
}

const LinkedLibrary *LinkLine::find(const std::string &Name) const {
  for (const LinkedLibrary &L : Libraries)
    if (L.Name == Name)
      return &L;
  return nullptr;
}

std::vector<LinkLine> parseNinjaLinkLines(const std::string &Text) {
  // Join "$\n" continuations first, so that every statement is one line.
  std::vector<std::string> Lines;
  {
    std::istringstream In(Text);
    std::string Line, Pending;
    while (std::getline(In, Line)) {
      if (!Line.empty() && Line.back() == '\r')
        Line.pop_back();
      std::size_t Dollars = 0;
      while (Dollars < Line.size() && Line[Line.size() - 1 - Dollars] == '$')
        ++Dollars;
      if (Dollars % 2 == 1) {
        Pending += Line.substr(0, Line.size() - 1);
        continue;
      }
      Lines.push_back(Pending + Line);
      Pending.clear();
    }
    if (!Pending.empty())
      Lines.push_back(Pending);
  }

  std::vector<LinkLine> Result;
  for (std::size_t I = 0; I < Lines.size(); ++I) {
    const std::string &Line = Lines[I];
    if (!startsWith(Line, "build "))
      continue;
    // "build OUT: RULE inputs"; a ':' inside OUT is escaped as "$:".
    std::size_t Colon = std::string::npos;
    for (std::size_t At = 6; At < Line.size(); ++At) {
      if (Line[At] == '$') {
        ++At;
        continue;
      }
      if (Line[At] == ':') {
        Colon = At;
        break;
      }
    }
    if (Colon == std::string::npos)
      continue;
    std::string Rest = trim(Line.substr(Colon + 1));
    std::string Rule = Rest.substr(0, Rest.find(' '));
    if (!isLinkerRule(Rule))
      continue;
    LinkLine Link;
    // The first output, cut at an unescaped space before "$ " is undone.
    std::string Outputs = trim(Line.substr(6, Colon - 6));
    std::size_t Space = 0;
    while (Space < Outputs.size() && Outputs[Space] != ' ')
      Space += Outputs[Space] == '$' ? 2 : 1;
    Link.Target = unescapeNinja(Outputs.substr(0, Space));
    // The rule is <LANG>_<KIND>_LINKER__<target>_<config>, the config
    // possibly empty; target names may hold underscores, configs do not.
    std::string Named = Rule.substr(Rule.find("_LINKER__") + 9);
    Link.CMakeTarget = Named.substr(0, Named.rfind('_'));
    Link.Source = "build.ninja";
    std::string Command;
    for (std::size_t J = I + 1;
         J < Lines.size() && !Lines[J].empty() &&
         std::isspace(static_cast<unsigned char>(Lines[J][0]));
         ++J) {
      std::string Binding = trim(Lines[J]);
      std::size_t Equals = Binding.find('=');
      if (Equals == std::string::npos)
        continue;
      std::string Name = trim(Binding.substr(0, Equals));
      if (Name == "LINK_FLAGS" || Name == "LINK_LIBRARIES")
        Command += " " + unescapeNinja(trim(Binding.substr(Equals + 1)));
    }
    Link.Libraries = parseLinkCommand(Command);
    Result.push_back(std::move(Link));
  }
  return Result;
}

std::optional<LinkLine> parseFileApiTarget(const std::string &Json) {
  nlohmann::json Reply = nlohmann::json::parse(Json, nullptr, false);
  if (Reply.is_discarded() || !Reply.is_object())
    return std::nullopt;
  auto Link = Reply.find("link");
  auto Name = Reply.find("name");
  if (Link == Reply.end() || !Link->is_object() || Name == Reply.end() ||
      !Name->is_string())
    return std::nullopt;
  auto Fragments = Link->find("commandFragments");
  if (Fragments == Link->end() || !Fragments->is_array())
    return std::nullopt;
  std::string Command;
  for (const nlohmann::json &Fragment : *Fragments) {
    if (!Fragment.is_object())
      continue;
    auto Text = Fragment.find("fragment");
    if (Text != Fragment.end() && Text->is_string())
      Command += " " + Text->get<std::string>();
  }
  LinkLine Line;
  Line.Target = Name->get<std::string>();
  Line.CMakeTarget = Line.Target;
  Line.Libraries = parseLinkCommand(Command);
  return Line;
}

std::optional<BuildFolder> readBuildFolder(const std::string &Folder,
                                           std::string &Error) {
  if (!isFolder(Folder)) {
    Error = "it is not a folder";
    return std::nullopt;
  }
  std::optional<std::string> CacheText = readText(Folder + "/CMakeCache.txt");
  if (!CacheText) {
    Error = "it has no CMakeCache.txt; name the folder CMake configured "
            "(the one given to -B)";
    return std::nullopt;
  }
  BuildFolder Build;
  Build.Folder = Folder;
  std::map<std::string, std::string> Cache = parseCMakeCache(*CacheText);
  if (Cache.empty()) {
    Error = "its CMakeCache.txt holds no cache entry";
    return std::nullopt;
  }
  Build.Generator =
      Cache.count("CMAKE_GENERATOR") ? Cache["CMAKE_GENERATOR"] : "";
  for (const char *Key : {"CMAKE_CXX_COMPILER", "CMAKE_C_COMPILER"})
    if (Cache.count(Key) && !Cache[Key].empty()) {
      Build.Compiler = Cache[Key];
      Build.CompilerAddsAsNeeded = compilerAddsAsNeeded(Build.Compiler);
      break;
    }
  findTorchLibraries(Cache, Build);

  std::vector<std::string> NinjaFiles;
  for (const std::string &Name : listFolder(Folder))
    if (Name == "build.ninja" ||
        (startsWith(Name, "build-") && endsWith(Name, ".ninja")))
      NinjaFiles.push_back(Name);
  for (const std::string &Name : NinjaFiles)
    if (std::optional<std::string> Text = readText(Folder + "/" + Name))
      for (LinkLine &Line : parseNinjaLinkLines(*Text)) {
        Line.Source = Name;
        Build.LinkLines.push_back(std::move(Line));
      }
  if (Build.LinkLines.empty()) {
    std::vector<std::string> LinkFiles;
    std::size_t Folders = 0;
    collectLinkFiles(Folder, 0, LinkFiles, Folders);
    for (const std::string &Path : LinkFiles) {
      std::optional<std::string> Text = readText(Path);
      if (!Text)
        continue;
      std::istringstream Lines(*Text);
      std::string Command;
      while (std::getline(Lines, Command)) {
        std::vector<std::string> Words = splitCommandLine(Command);
        if (std::find(Words.begin(), Words.end(), "-o") == Words.end())
          continue; // ar and ranlib lines of a static library.
        LinkLine Line;
        std::string Dir = folderOf(Path);
        std::string DirName = Dir.substr(Dir.rfind('/') + 1);
        Line.Target = DirName.substr(0, DirName.size() - 4);
        Line.CMakeTarget = Line.Target;
        Line.Source = Path.substr(Folder.size() + 1);
        Line.Libraries = parseLinkCommand(Command);
        Build.LinkLines.push_back(std::move(Line));
      }
    }
  }
  if (Build.LinkLines.empty()) {
    std::string Replies = Folder + "/.cmake/api/v1/reply";
    for (const std::string &Name : listFolder(Replies))
      if (startsWith(Name, "target-") && endsWith(Name, ".json"))
        if (std::optional<std::string> Text = readText(Replies + "/" + Name))
          if (std::optional<LinkLine> Line = parseFileApiTarget(*Text)) {
            Line->Source = ".cmake/api/v1/reply/" + Name;
            Build.LinkLines.push_back(std::move(*Line));
          }
  }
  if (Build.LinkLines.empty())
    Build.LinkLinesSearched = "build.ninja, CMakeFiles/*.dir/link.txt and "
                              ".cmake/api/v1/reply/target-*.json";
  return Build;
}

} // namespace torchlint::doctor
