//===--- TestInputsTest.cpp - test-inputs/ is the specification -----------===//
//
// Every program in test-inputs/ is analyzed as a user would analyze it: the
// torchlint binary over the compilation database CMake exported for the
// project, once against each generation of libtorch headers (Debian 12's
// 1.13, and 2.x unpacked by scripts/install-deps.sh). Each `// expect: <rule>` annotation must be matched by a finding
// on its line, and no other finding may appear. Each golden `.fixed.cpp`
// must equal the output of --fix byte for byte, parse cleanly, and draw no
// finding of a fix that was applied.
//
//===----------------------------------------------------------------------===//

#include "Subprocess.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {
namespace {

using LineRule = std::pair<unsigned, std::string>;

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

/// A generation of libtorch headers and the test-inputs database configured
/// against it.
struct Generation {
  std::string Name;
  int Major;
  std::string Database;
};

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

/// The requirements a program states on a `// torchlint-test:` line.
bool buildsWith(const std::string &Program, int Major) {
  std::istringstream In(readFile(
      (fs::path(testInputsDir()) / (Program + ".cpp")).string()));
  std::string Line;
  while (std::getline(In, Line))
    if (Line.rfind("// torchlint-test:", 0) == 0 &&
        Line.find("libtorch>=2") != std::string::npos && Major < 2)
      return false;
  return true;
}

std::vector<std::string> programs(int Major = 0) {
  std::vector<std::string> Names;
  for (const fs::directory_entry &Entry : fs::directory_iterator(testInputsDir())) {
    std::string Name = Entry.path().filename().string();
    if (Entry.path().extension() == ".cpp" &&
        Name.find(".fixed.") == std::string::npos &&
        (Major == 0 || buildsWith(Entry.path().stem().string(), Major)))
      Names.push_back(Entry.path().stem().string());
  }
  std::sort(Names.begin(), Names.end());
  return Names;
}

std::vector<std::string> goldens(int Major = 0) {
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
    for (const std::string &Name : GoldenOnly ? goldens(G.Major) : programs(G.Major))
      Cases.push_back(G.Name + "/" + Name);
  return Cases;
}

std::pair<const Generation &, std::string> splitCase(const std::string &Case) {
  size_t Slash = Case.find('/');
  return {generation(Case.substr(0, Slash)), Case.substr(Slash + 1)};
}

/// The findings of one analyzer run, by file.
struct Analysis {
  RunResult Run;
  json Output;
  std::map<std::string, std::vector<json>> ByFile;
  std::map<std::string, std::string> Failures;
};

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

/// The three runs the specification needs, made once per generation and
/// test process.
const Analysis &originals(const Generation &G) {
  static std::map<std::string, Analysis> Runs;
  auto It = Runs.find(G.Name);
  if (It == Runs.end())
    It = Runs.emplace(G.Name, analyze({"--format=json", "-j", "2", "--quiet",
                                       G.Database}))
             .first;
  return It->second;
}

struct FixRun {
  std::string Directory;
  RunResult Run;
};

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
                                       "--quiet", Database});
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
      .emplace(G.Name, analyze({"--format=json", "-j", "2", "--quiet", Database}))
      .first->second;
}

std::string describe(const std::multiset<LineRule> &Items,
                     const std::vector<json> &Findings) {
  std::ostringstream Text;
  for (const LineRule &Item : Items) {
    Text << "  line " << Item.first << ": " << Item.second;
    for (const json &F : Findings)
      if (F["line"] == Item.first && F["rule"] == Item.second) {
        Text << " -- " << F["message"].get<std::string>();
        break;
      }
    Text << "\n";
  }
  return Text.str();
}

std::string testName(const ::testing::TestParamInfo<std::string> &Info) {
  std::string Name = Info.param;
  std::replace(Name.begin(), Name.end(), '/', '_');
  return Name;
}

class TestInput : public ::testing::TestWithParam<std::string> {};

TEST_P(TestInput, FindingsMatchAnnotations) {
  auto [G, Program] = splitCase(GetParam());
  const Analysis &A = originals(G);
  ASSERT_FALSE(A.Output.is_discarded())
      << "torchlint did not print JSON (exit " << A.Run.ExitCode << "):\n"
      << A.Run.Stderr;
  std::string Path = (fs::path(testInputsDir()) / (Program + ".cpp")).string();
  ASSERT_TRUE(A.Output["translationUnits"].get<int>() > 0);
  auto Failure = A.Failures.find(Path);
  ASSERT_TRUE(Failure == A.Failures.end())
      << Path << " was not analyzed against " << G.Name << ": "
      << Failure->second;
  ASSERT_NE(readFile(G.Database).find("\"" + Path + "\""), std::string::npos)
      << Path << " is missing from " << G.Database;

  std::multiset<LineRule> Expected = annotations(Path);
  std::multiset<LineRule> Actual;
  std::vector<json> Findings;
  if (auto It = A.ByFile.find(Path); It != A.ByFile.end())
    Findings = It->second;
  for (const json &F : Findings)
    Actual.insert({F["line"].get<unsigned>(), F["rule"].get<std::string>()});

  std::multiset<LineRule> Missed, Unexpected;
  std::set_difference(Expected.begin(), Expected.end(), Actual.begin(),
                      Actual.end(), std::inserter(Missed, Missed.end()));
  std::set_difference(Actual.begin(), Actual.end(), Expected.begin(),
                      Expected.end(),
                      std::inserter(Unexpected, Unexpected.end()));
  EXPECT_TRUE(Missed.empty()) << "missed findings in " << Path << " with "
                              << G.Name << ":\n"
                              << describe(Missed, Findings);
  EXPECT_TRUE(Unexpected.empty()) << "unexpected findings in " << Path
                                  << " with " << G.Name << ":\n"
                                  << describe(Unexpected, Findings);
}

INSTANTIATE_TEST_SUITE_P(Programs, TestInput,
                         ::testing::ValuesIn(cases(/*GoldenOnly=*/false)),
                         testName);

class GoldenFile : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenFile, FixOutputMatchesGoldenByteForByte) {
  auto [G, Program] = splitCase(GetParam());
  const FixRun &R = fixedCopies(G);
  ASSERT_NE(R.Run.ExitCode, 2) << R.Run.Stderr;
  std::string Fixed = readFile(R.Directory + "/" + Program + ".cpp");
  std::string Golden = readFile(
      (fs::path(testInputsDir()) / (Program + ".fixed.cpp")).string());
  EXPECT_EQ(Fixed, Golden) << "torchlint --fix output with " << G.Name
                           << " differs from " << Program << ".fixed.cpp";
}

TEST_P(GoldenFile, ParsesAndDrawsNoFindingOfAnAppliedFix) {
  auto [G, Program] = splitCase(GetParam());
  const Analysis &Golden = goldenAnalysis(G);
  ASSERT_FALSE(Golden.Output.is_discarded()) << Golden.Run.Stderr;
  std::string GoldenPath =
      (fs::path(testInputsDir()) / (Program + ".fixed.cpp")).string();
  auto Failure = Golden.Failures.find(GoldenPath);
  ASSERT_TRUE(Failure == Golden.Failures.end())
      << GoldenPath << " does not parse with " << G.Name << ": "
      << Failure->second;

  // Per rule, what remains must be exactly the findings that had no fix-it.
  std::map<std::string, int> Remaining, Unfixable;
  std::string Original =
      (fs::path(testInputsDir()) / (Program + ".cpp")).string();
  const Analysis &Originals = originals(G);
  if (auto It = Originals.ByFile.find(Original); It != Originals.ByFile.end())
    for (const json &F : It->second)
      if (F["fixes"].empty())
        ++Unfixable[F["rule"].get<std::string>()];
  if (auto It = Golden.ByFile.find(GoldenPath); It != Golden.ByFile.end())
    for (const json &F : It->second)
      ++Remaining[F["rule"].get<std::string>()];
  EXPECT_EQ(Remaining, Unfixable)
      << "findings left in " << GoldenPath << " with " << G.Name
      << " are not exactly those that offered no fix-it";
}

INSTANTIATE_TEST_SUITE_P(Programs, GoldenFile,
                         ::testing::ValuesIn(cases(/*GoldenOnly=*/true)),
                         testName);

TEST(Specification, SomeProgramIsCxx20AgainstLibtorch2) {
  bool Found = false;
  for (const std::string &Name : programs(2)) {
    std::string Text =
        readFile((fs::path(testInputsDir()) / (Name + ".cpp")).string());
    if (Text.find("// torchlint-test:") != std::string::npos &&
        Text.find("c++20") != std::string::npos)
      Found = true;
  }
  EXPECT_TRUE(Found);
  EXPECT_NE(readFile(generation("libtorch2").Database).find("-std=gnu++20"),
            std::string::npos);
}

TEST(Specification, EveryRuleHasTenPositiveCases) {
  std::map<std::string, int> Positives;
  for (const std::string &Name : programs())
    for (const LineRule &Item : annotations(
             (fs::path(testInputsDir()) / (Name + ".cpp")).string()))
      ++Positives[Item.second];
  json Rules = originals(generations().front()).Output["rules"];
  ASSERT_FALSE(Rules.empty());
  for (const json &Rule : Rules)
    EXPECT_GE(Positives[Rule.get<std::string>()], 10)
        << Rule << " has fewer than 10 positive cases in test-inputs/";
}

TEST(Specification, EveryRuleHasItsDocsPage) {
  fs::path Docs = fs::path(testInputsDir()).parent_path() / "docs" / "rules";
  for (const json &Rule : originals(generations().front()).Output["rules"])
    EXPECT_TRUE(fs::exists(Docs / (Rule.get<std::string>() + ".md")))
        << "no docs/rules/" << Rule.get<std::string>() << ".md";
}

} // namespace
} // namespace torchlint::test
