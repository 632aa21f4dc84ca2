#include "TestInputs.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {

namespace {
/// Reads the items after `// expect:`; a comma inside a quoted text is text.
std::vector<Expectation> parseExpectations(const std::string &Items,
                                           unsigned Line,
                                           const std::string &Path) {
  auto Fail = [&](const std::string &Why) {
    throw std::runtime_error(Path + ":" + std::to_string(Line) +
                             ": bad annotation: " + Why);
  };
  std::vector<Expectation> Result;
  size_t I = 0;
  auto SkipSpace = [&] {
    while (I < Items.size() &&
           (Items[I] == ' ' || Items[I] == '\t' || Items[I] == '\r'))
      ++I;
  };
  while (true) {
    SkipSpace();
    if (I == Items.size())
      break;
    Expectation E;
    E.Line = Line;
    while (I < Items.size() && (std::isalnum((unsigned char)Items[I]) ||
                                Items[I] == '-' || Items[I] == '_'))
      E.Rule += Items[I++];
    if (E.Rule.empty())
      Fail("expected a rule id at '" + Items.substr(I) + "'");
    SkipSpace();
    if (I < Items.size() && Items[I] == '[') {
      size_t Close = Items.find(']', I);
      if (Close == std::string::npos)
        Fail("unclosed [level]");
      E.Level = Items.substr(I + 1, Close - I - 1);
      if (E.Level != "error" && E.Level != "warning" && E.Level != "note")
        Fail("level '" + E.Level + "' is not error, warning or note");
      I = Close + 1;
      SkipSpace();
    }
    if (I < Items.size() && Items[I] == '"') {
      size_t Close = Items.find('"', I + 1);
      if (Close == std::string::npos)
        Fail("unclosed \"message\"");
      E.Text = Items.substr(I + 1, Close - I - 1);
      I = Close + 1;
      SkipSpace();
    }
    Result.push_back(std::move(E));
    if (I == Items.size())
      break;
    if (Items[I] != ',')
      Fail("expected ',' at '" + Items.substr(I) + "'");
    ++I;
  }
  return Result;
}
} // namespace

std::multiset<LineRule> Annotations::lineRules() const {
  std::multiset<LineRule> Result;
  for (const Expectation &E : Findings)
    Result.insert({E.Line, E.Rule});
  return Result;
}

Annotations readAnnotations(const std::string &Path) {
  Annotations Result;
  std::istringstream In(readFile(Path));
  std::string Line;
  unsigned Number = 0;
  while (std::getline(In, Line)) {
    ++Number;
    static const std::string Finding = "// expect:";
    static const std::string Note = "// expect-note:";
    // A line may expect a finding and, after it, a note on the same line
    // (a finding's remedy is a note at its own place).
    size_t FindingAt = Line.find(Finding);
    size_t NoteAt = Line.find(Note);
    if (FindingAt != std::string::npos) {
      size_t End = NoteAt != std::string::npos && NoteAt > FindingAt
                       ? NoteAt
                       : std::string::npos;
      std::string Items = Line.substr(FindingAt + Finding.size(),
                                      End == std::string::npos
                                          ? std::string::npos
                                          : End - FindingAt - Finding.size());
      for (Expectation &E : parseExpectations(Items, Number, Path))
        Result.Findings.push_back(std::move(E));
    }
    if (NoteAt != std::string::npos &&
        (FindingAt == std::string::npos || NoteAt > FindingAt)) {
      std::string Text = Line.substr(NoteAt + Note.size());
      size_t Open = Text.find('"');
      size_t Close = Text.rfind('"');
      if (Open == std::string::npos || Close == Open)
        throw std::runtime_error(Path + ":" + std::to_string(Number) +
                                 ": bad annotation: expect-note needs a "
                                 "\"text\"");
      Result.Notes.push_back({Number, Text.substr(Open + 1, Close - Open - 1)});
    }
  }
  return Result;
}

std::multiset<LineRule> annotations(const std::string &Path) {
  return readAnnotations(Path).lineRules();
}

std::vector<std::string> programMarks(const std::string &Program) {
  static const std::string Mark = "// torchlint-test:";
  std::vector<std::string> Words;
  for (const std::string &File : programFiles(Program)) {
    std::istringstream In(readFile(File));
    std::string Line;
    while (std::getline(In, Line)) {
      if (Line.rfind(Mark, 0) != 0)
        continue;
      std::istringstream Items(Line.substr(Mark.size()));
      for (std::string Word; Items >> Word;)
        Words.push_back(Word);
    }
  }
  return Words;
}

const std::set<std::string> &rulesOffByDefault() {
  static const std::set<std::string> Rules = [] {
    std::set<std::string> Result;
    RunResult Listed =
        run(torchlintBinary(), {"--list-checks", "--checks=*"});
    std::istringstream In(Listed.Stdout);
    for (std::string Id, Rest; In >> Id && std::getline(In, Rest);)
      if (Rest.find("(off by default)") != std::string::npos)
        Result.insert(Id);
    return Result;
  }();
  return Rules;
}

std::set<std::string> enabledOffRules(const std::string &Program) {
  std::set<std::string> Result;
  for (const std::string &Mark : programMarks(Program)) {
    if (Mark.rfind("checks=", 0) != 0)
      continue;
    std::istringstream Items(Mark.substr(std::string("checks=").size()));
    for (std::string Rule; std::getline(Items, Rule, ',');)
      if (rulesOffByDefault().count(Rule))
        Result.insert(Rule);
  }
  return Result;
}

std::string tidyChecksFor(const std::string &Program) {
  std::string Checks = "-*,torch-*";
  std::set<std::string> Enabled = enabledOffRules(Program);
  for (const std::string &Rule : rulesOffByDefault())
    if (!Enabled.count(Rule))
      Checks += ",-" + Rule;
  return Checks;
}

namespace {
bool isGolden(const fs::path &File) {
  return File.filename().string().find(".fixed.") != std::string::npos;
}

bool isSource(const fs::path &File) {
  std::string Extension = File.extension().string();
  return Extension == ".cpp" || Extension == ".h" || Extension == ".hpp";
}
} // namespace

bool isMultiUnit(const std::string &Program) {
  return fs::is_directory(fs::path(testInputsDir()) / Program);
}

std::vector<std::string> programFiles(const std::string &Program) {
  if (!isMultiUnit(Program))
    return {programPath(Program)};
  std::vector<std::string> Files;
  for (const fs::directory_entry &Entry :
       fs::directory_iterator(fs::path(testInputsDir()) / Program))
    if (Entry.is_regular_file() && isSource(Entry.path()) &&
        !isGolden(Entry.path()))
      Files.push_back(Entry.path().string());
  std::sort(Files.begin(), Files.end());
  return Files;
}

std::vector<std::string> programUnits(const std::string &Program) {
  std::vector<std::string> Units;
  for (const std::string &File : programFiles(Program))
    if (fs::path(File).extension() == ".cpp")
      Units.push_back(File);
  return Units;
}

std::string goldenOf(const std::string &File) {
  fs::path Path(File);
  return (Path.parent_path() /
          (Path.stem().string() + ".fixed" + Path.extension().string()))
      .string();
}

Annotations programAnnotations(const std::string &Program) {
  Annotations All;
  for (const std::string &File : programFiles(Program)) {
    Annotations One = readAnnotations(File);
    All.Findings.insert(All.Findings.end(), One.Findings.begin(),
                        One.Findings.end());
    All.Notes.insert(All.Notes.end(), One.Notes.begin(), One.Notes.end());
  }
  return All;
}

std::string twinOf(const std::string &Program) {
  std::vector<std::string> Words = programMarks(Program);
  auto Twin = std::find(Words.begin(), Words.end(), "twin-of");
  return Twin != Words.end() && Twin + 1 != Words.end() ? *(Twin + 1) : "";
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
  std::vector<std::string> Words = programMarks(Program);
  // As test-inputs/CMakeLists.txt reads it: a mention of libtorch>=2.
  return Major >= 2 || std::none_of(Words.begin(), Words.end(), [](auto &W) {
           return W.find("libtorch>=2") != std::string::npos;
         });
}
} // namespace

std::vector<std::string> programs(int Major) {
  std::vector<std::string> Names;
  for (const fs::directory_entry &Entry :
       fs::directory_iterator(testInputsDir())) {
    // A folder is named by itself, a unit by its stem.
    std::string Name = Entry.is_directory() ? Entry.path().filename().string()
                                            : Entry.path().stem().string();
    bool Program = Entry.is_directory() ? !programUnits(Name).empty()
                                        : Entry.path().extension() == ".cpp" &&
                                              !isGolden(Entry.path());
    if (Program && (Major == 0 || buildsWith(Name, Major)))
      Names.push_back(Name);
  }
  std::sort(Names.begin(), Names.end());
  return Names;
}

std::vector<std::string> goldens(int Major) {
  std::vector<std::string> Names;
  for (const std::string &Name : programs(Major))
    for (const std::string &File : programFiles(Name))
      if (fs::exists(goldenOf(File))) {
        Names.push_back(Name);
        break;
      }
  return Names;
}

std::vector<std::string> singleFile(std::vector<std::string> Names) {
  Names.erase(std::remove_if(Names.begin(), Names.end(), isMultiUnit),
              Names.end());
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

namespace {
/// Analysis::ByFile, from its Output's findings.
void indexFindingsByFile(Analysis &A) {
  A.ByFile.clear();
  for (const json &F : A.Output["findings"])
    A.ByFile[F["file"].get<std::string>()].push_back(F);
}
} // namespace

Analysis analyze(const std::vector<std::string> &Args) {
  Analysis A;
  A.Run = run(torchlintBinary(), Args);
  A.Output = json::parse(A.Run.Stdout, nullptr, /*allow_exceptions=*/false);
  if (A.Output.is_discarded())
    return A;
  indexFindingsByFile(A);
  for (const json &F : A.Output["failures"])
    A.Failures[F["file"].get<std::string>()] = F["message"].get<std::string>();
  return A;
}

std::string copyPath(const std::string &File, const std::string &Directory) {
  return (fs::path(Directory) /
          fs::path(File).lexically_relative(testInputsDir()))
      .string();
}

std::vector<std::string> copyProgram(const std::string &Program,
                                     const std::string &Directory,
                                     bool Golden) {
  std::vector<std::string> Copies;
  for (const std::string &File : programFiles(Program)) {
    std::string Copy = copyPath(File, Directory);
    fs::create_directories(fs::path(Copy).parent_path());
    std::string Source =
        Golden && fs::exists(goldenOf(File)) ? goldenOf(File) : File;
    fs::copy_file(Source, Copy, fs::copy_options::overwrite_existing);
    Copies.push_back(Copy);
  }
  return Copies;
}

/// The program a unit of the database belongs to: its stem, or its folder
/// for a unit of a multi-unit program.
std::string programOfUnit(const fs::path &Unit) {
  fs::path Relative = Unit.lexically_relative(testInputsDir());
  auto First = Relative.begin();
  if (First == Relative.end())
    return "";
  if (std::next(First) != Relative.end())
    return First->string();
  return Unit.stem().string();
}

std::string databaseFor(const Generation &G,
                        const std::vector<std::string> &Names,
                        const std::string &Directory) {
  json Original = json::parse(readFile(G.Database));
  json Result = json::array();
  for (json Entry : Original) {
    fs::path File = Entry["file"].get<std::string>();
    if (std::find(Names.begin(), Names.end(), programOfUnit(File)) ==
        Names.end())
      continue;
    std::string Target = copyPath(File.string(), Directory);
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

std::string onlyRule() {
  const char *Rule = std::getenv("TORCHLINT_SPEC_RULE");
  return Rule ? Rule : "";
}

std::string cacheFolder(const Generation &G) {
  static std::map<std::string, std::string> Directories;
  auto It = Directories.find(G.Name);
  if (It == Directories.end()) {
    std::string Directory;
    if (const char *Shared = std::getenv("TORCHLINT_SPEC_CACHE")) {
      Directory = (fs::path(Shared) / G.Name).string();
      fs::create_directories(Directory);
    } else {
      Directory = temporaryDirectory();
    }
    It = Directories.emplace(G.Name, Directory).first;
  }
  return It->second;
}

std::string cacheDirectory(const Generation &G) {
  return "--cache-dir=" + cacheFolder(G);
}

std::vector<std::string> filesWithExtension(const std::string &Directory,
                                            const std::string &Extension) {
  std::vector<std::string> Files;
  if (fs::exists(Directory))
    for (const fs::directory_entry &E :
         fs::recursive_directory_iterator(Directory))
      if (E.is_regular_file() && E.path().extension() == Extension)
        Files.push_back(E.path().string());
  return Files;
}

std::map<std::string, std::set<std::string>>
headersReadByUnit(const std::string &Cache) {
  std::map<std::string, std::set<std::string>> Read;
  for (const std::string &Entry :
       filesWithExtension(Cache + "/results", ".json")) {
    json Inputs = json::parse(readFile(Entry))["inputs"];
    std::string Unit;
    std::set<std::string> Headers;
    for (const json &Input : Inputs) {
      std::string Path = Input[0];
      if (fs::path(Path).extension() == ".cpp")
        Unit = Path;
      else if (fs::path(Path).extension() == ".pch")
        Headers.insert(Path);
    }
    Read[Unit].insert(Headers.begin(), Headers.end());
  }
  return Read;
}

namespace {
/// The programs of G that name Rule in an annotation.
std::vector<std::string> programsNaming(const Generation &G,
                                        const std::string &Rule) {
  std::vector<std::string> Names;
  for (const std::string &Name : programs(G.Major))
    for (const LineRule &Item : programAnnotations(Name).lineRules())
      if (Item.second == Rule) {
        Names.push_back(Name);
        break;
      }
  return Names;
}
} // namespace

Analysis analyzeTestInputs(const Generation &G,
                           const std::string &Acceleration) {
  std::string Sarif = temporaryDirectory() + "/" + G.Name + ".sarif";
  std::vector<std::string> Args = {"--format=json",
                                   "-j",
                                   "2",
                                   "--quiet",
                                   Acceleration,
                                   "--export-sarif=" + Sarif,
                                   std::string("--sarif-category=") +
                                       SarifCategory};
  std::string Rule = onlyRule();
  if (Rule.empty()) {
    // Every rule runs, those off by default too; their findings count only
    // in the programs that enable them.
    Args.push_back("--checks=*");
    Args.push_back(G.Database);
  } else {
    Args.push_back("--checks=-*," + Rule);
    // Each program's own entry, so that it is analyzed as in the full run.
    std::string Directory = temporaryDirectory();
    json Original = json::parse(readFile(G.Database));
    json Subset = json::array();
    std::vector<std::string> Names = programsNaming(G, Rule);
    for (const json &Entry : Original)
      if (std::find(Names.begin(), Names.end(),
                    programOfUnit(Entry["file"].get<std::string>())) !=
          Names.end())
        Subset.push_back(Entry);
    writeFile(Directory + "/compile_commands.json", Subset.dump(1));
    Args.push_back(Directory + "/compile_commands.json");
  }
  Analysis A = analyze(Args);
  A.Sarif = Sarif;
  if (A.Output.is_discarded())
    return A;
  auto RunsThere = [](const json &F) {
    const std::string RuleId = F["rule"].get<std::string>();
    return !rulesOffByDefault().count(RuleId) ||
           enabledOffRules(programOfUnit(F["file"].get<std::string>()))
               .count(RuleId);
  };
  json Kept = json::array();
  for (const json &F : A.Output["findings"])
    if (RunsThere(F))
      Kept.push_back(F);
  A.Output["findings"] = Kept;
  indexFindingsByFile(A);
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
    copyProgram(Name, Result.Directory, /*Golden=*/false);
  std::string Database = databaseFor(G, goldens(G.Major), Result.Directory);
  Result.Run = run(torchlintBinary(), {"--fix", "--format=json", "-j", "2",
                                       "--quiet", cacheDirectory(G), Database});
  for (const std::string &Name : goldens(G.Major))
    for (const std::string &File : programFiles(Name))
      Result.Fixed[copyPath(File, Result.Directory)] =
          readFile(copyPath(File, Result.Directory));
  return Runs.emplace(G.Name, std::move(Result)).first->second;
}

const GoldenRun &goldenAnalysis(const Generation &G) {
  static std::map<std::string, GoldenRun> Runs;
  auto It = Runs.find(G.Name);
  if (It != Runs.end())
    return It->second;
  GoldenRun Result;
  Result.Directory = fixedCopies(G).Directory;
  for (const std::string &Name : goldens(G.Major))
    copyProgram(Name, Result.Directory, /*Golden=*/true);
  std::string Database = databaseFor(G, goldens(G.Major), Result.Directory);
  Result.Result = analyze(
      {"--fix", "--format=json", "-j", "2", cacheDirectory(G), Database});
  return Runs.emplace(G.Name, std::move(Result)).first->second;
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
