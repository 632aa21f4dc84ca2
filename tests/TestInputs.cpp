#include "TestInputs.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {

std::multiset<LineRule> annotations(const std::string &Path) {
  std::multiset<LineRule> Expected;
  std::istringstream In(readFile(Path));
  std::string Line;
  unsigned Number = 0;
  while (std::getline(In, Line)) {
    ++Number;
    size_t At = Line.find("// expect:");
    if (At == std::string::npos)
      continue;
    std::istringstream Rules(Line.substr(At + 10));
    std::string Rule;
    while (std::getline(Rules, Rule, ',')) {
      Rule.erase(0, Rule.find_first_not_of(" \t"));
      Rule.erase(Rule.find_last_not_of(" \t\r") + 1);
      if (!Rule.empty())
        Expected.insert({Number, Rule});
    }
  }
  return Expected;
}

const std::vector<Generation> &generations() {
  static const std::vector<Generation> All = {
      {"libtorch1", 1, testInputsDatabase()},
      {"libtorch2", 2, TORCHLINT_TEST_INPUTS_DATABASE_LIBTORCH2},
  };
  return All;
}

const Generation &generation(const std::string &Name) {
  for (const Generation &G : generations())
    if (G.Name == Name)
      return G;
  throw std::invalid_argument(Name);
}

namespace {
/// The requirements a program states on a `// torchlint-test:` line.
bool buildsWith(const std::string &Program, int Major) {
  std::istringstream In(
      readFile((fs::path(testInputsDir()) / (Program + ".cpp")).string()));
  std::string Line;
  while (std::getline(In, Line))
    if (Line.rfind("// torchlint-test:", 0) == 0 &&
        Line.find("libtorch>=2") != std::string::npos && Major < 2)
      return false;
  return true;
}
} // namespace

std::vector<std::string> programs(int Major) {
  std::vector<std::string> Names;
  for (const fs::directory_entry &Entry :
       fs::directory_iterator(testInputsDir())) {
    std::string Name = Entry.path().filename().string();
    if (Entry.path().extension() == ".cpp" &&
        Name.find(".fixed.") == std::string::npos &&
        (Major == 0 || buildsWith(Entry.path().stem().string(), Major)))
      Names.push_back(Entry.path().stem().string());
  }
  std::sort(Names.begin(), Names.end());
  return Names;
}

std::vector<std::string> goldens(int Major) {
  std::vector<std::string> Names;
  for (const std::string &Name : programs(Major))
    if (fs::exists(fs::path(testInputsDir()) / (Name + ".fixed.cpp")))
      Names.push_back(Name);
  return Names;
}

/// "<generation>/<program>" for every program each generation builds.
std::vector<std::string> cases(bool GoldenOnly) {
  std::vector<std::string> Cases;
  for (const Generation &G : generations())
    for (const std::string &Name :
         GoldenOnly ? goldens(G.Major) : programs(G.Major))
      Cases.push_back(G.Name + "/" + Name);
  return Cases;
}

std::string programPath(const std::string &Program, const std::string &Suffix) {
  return (fs::path(testInputsDir()) / (Program + Suffix)).string();
}

std::pair<const Generation &, std::string> splitCase(const std::string &Case) {
  size_t Slash = Case.find('/');
  return {generation(Case.substr(0, Slash)), Case.substr(Slash + 1)};
}

Analysis analyze(const std::vector<std::string> &Args) {
  Analysis A;
  A.Run = run(torchlintBinary(), Args);
  A.Output = json::parse(A.Run.Stdout, nullptr, /*allow_exceptions=*/false);
  if (A.Output.is_discarded())
    return A;
  for (const json &F : A.Output["findings"])
    A.ByFile[F["file"].get<std::string>()].push_back(F);
  for (const json &F : A.Output["failures"])
    A.Failures[F["file"].get<std::string>()] = F["message"].get<std::string>();
  return A;
}

/// A compilation database for copies of the named programs in Directory, or
/// for their golden files: each entry is the program's own, pointed at
/// another file.
std::string databaseFor(const Generation &G,
                        const std::vector<std::string> &Names,
                        const std::string &Directory, bool Golden) {
  json Original = json::parse(readFile(G.Database));
  json Result = json::array();
  for (json Entry : Original) {
    fs::path File = Entry["file"].get<std::string>();
    std::string Name = File.stem().string();
    if (std::find(Names.begin(), Names.end(), Name) == Names.end())
      continue;
    std::string Target =
        Golden ? (fs::path(testInputsDir()) / (Name + ".fixed.cpp")).string()
               : (fs::path(Directory) / (Name + ".cpp")).string();
    std::string Command = Entry["command"].get<std::string>();
    size_t At = Command.find(File.string());
    if (At != std::string::npos)
      Command.replace(At, File.string().size(), Target);
    Entry["command"] = Command;
    Entry["file"] = Target;
    Result.push_back(Entry);
  }
  std::string Path = Directory + "/compile_commands.json";
  writeFile(Path, Result.dump(1));
  return Path;
}

std::string cacheDirectory(const Generation &G) {
  static std::map<std::string, std::string> Directories;
  auto It = Directories.find(G.Name);
  if (It == Directories.end())
    It = Directories.emplace(G.Name, temporaryDirectory()).first;
  return "--cache-dir=" + It->second;
}

Analysis analyzeTestInputs(const Generation &G,
                           const std::string &Acceleration) {
  std::string Sarif = temporaryDirectory() + "/" + G.Name + ".sarif";
  Analysis A =
      analyze({"--format=json", "-j", "2", "--quiet", Acceleration,
               "--export-sarif=" + Sarif,
               std::string("--sarif-category=") + SarifCategory, G.Database});
  A.Sarif = Sarif;
  return A;
}

const Analysis &originals(const Generation &G) {
  static std::map<std::string, Analysis> Runs;
  auto It = Runs.find(G.Name);
  if (It == Runs.end())
    It = Runs.emplace(G.Name, analyzeTestInputs(G, cacheDirectory(G))).first;
  return It->second;
}

const FixRun &fixedCopies(const Generation &G) {
  static std::map<std::string, FixRun> Runs;
  auto It = Runs.find(G.Name);
  if (It != Runs.end())
    return It->second;
  FixRun Result;
  Result.Directory = temporaryDirectory();
  for (const std::string &Name : goldens(G.Major))
    fs::copy_file(fs::path(testInputsDir()) / (Name + ".cpp"),
                  fs::path(Result.Directory) / (Name + ".cpp"));
  std::string Database =
      databaseFor(G, goldens(G.Major), Result.Directory, false);
  Result.Run = run(torchlintBinary(), {"--fix", "--format=json", "-j", "2",
                                       "--quiet", cacheDirectory(G), Database});
  return Runs.emplace(G.Name, std::move(Result)).first->second;
}

const Analysis &goldenAnalysis(const Generation &G) {
  static std::map<std::string, Analysis> Runs;
  auto It = Runs.find(G.Name);
  if (It != Runs.end())
    return It->second;
  std::string Database =
      databaseFor(G, goldens(G.Major), temporaryDirectory(), true);
  return Runs
      .emplace(G.Name, analyze({"--format=json", "-j", "2", "--quiet",
                                cacheDirectory(G), Database}))
      .first->second;
}

std::string dataFile(const std::string &Name) {
  if (fs::path(Name).is_absolute())
    return Name;
  return (fs::path(TORCHLINT_TEST_DATA) / Name).string();
}

std::string dataDatabase(const std::vector<std::string> &Files) {
  json Original = json::parse(readFile(testInputsDatabase()));
  const json &Model = Original.at(0);
  std::string ModelFile = Model["file"].get<std::string>();
  json Result = json::array();
  for (const std::string &Name : Files) {
    json Entry = Model;
    std::string Command = Entry["command"].get<std::string>();
    Command.replace(Command.find(ModelFile), ModelFile.size(), dataFile(Name));
    Entry["command"] = Command;
    Entry["file"] = dataFile(Name);
    Result.push_back(Entry);
  }
  std::string Path = temporaryDirectory() + "/compile_commands.json";
  writeFile(Path, Result.dump(1));
  return Path;
}

} // namespace torchlint::test
