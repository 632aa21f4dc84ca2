//===--- TestInputsTest.cpp - test-inputs/ is the specification -----------===//
//
// Every program in test-inputs/ is analyzed as a user would analyze it: the
// torchlint binary over the compilation database CMake exported for the
// project, once against each generation of libtorch headers (Debian 12's
// 1.13, and 2.x unpacked by scripts/install-deps.sh). Each `// expect:
// <rule> [level] "text"` annotation must be matched by a finding on its line,
// of that level and with that text in its message where they are given, and
// no other finding may appear; each `// expect-note: "text"` by a note on its
// line. Each golden `.fixed.cpp` must equal the output of --fix byte for
// byte, parse cleanly, and draw no finding of a fix that was applied.
//
//===----------------------------------------------------------------------===//

#include "TestInputs.h"

#include "common/Scenarios.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {
namespace {

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

/// One file of a program: its findings against its annotations.
void expectFindingsMatch(const Generation &G, const std::string &Path,
                         const Analysis &A) {
  Annotations Spec = readAnnotations(Path);
  // scripts/check-rule.sh runs one rule: only its annotations then count.
  std::string Only = onlyRule();
  if (!Only.empty())
    Spec.Findings.erase(
        std::remove_if(Spec.Findings.begin(), Spec.Findings.end(),
                       [&](const Expectation &E) { return E.Rule != Only; }),
        Spec.Findings.end());

  std::multiset<LineRule> Expected = Spec.lineRules();
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
  EXPECT_TRUE(Missed.empty())
      << "missed findings in " << Path << " with " << G.Name << ":\n"
      << describe(Missed, Findings);
  EXPECT_TRUE(Unexpected.empty())
      << "unexpected findings in " << Path << " with " << G.Name << ":\n"
      << describe(Unexpected, Findings);

  // What users see: the level and the words of the message, where pinned.
  for (const Expectation &E : Spec.Findings) {
    if (E.Level.empty() && E.Text.empty())
      continue;
    bool Matched = false;
    std::string Seen;
    for (const json &F : Findings) {
      if (F["line"] != E.Line || F["rule"] != E.Rule)
        continue;
      std::string Level = F["level"].get<std::string>();
      std::string Message = F["message"].get<std::string>();
      Seen += "\n  [" + Level + "] " + Message;
      if ((E.Level.empty() || Level == E.Level) &&
          Message.find(E.Text) != std::string::npos)
        Matched = true;
    }
    EXPECT_TRUE(Matched || Seen.empty())
        << Path << ":" << E.Line << " with " << G.Name << ": expected "
        << E.Rule << (E.Level.empty() ? "" : " [" + E.Level + "]") << " \""
        << E.Text << "\", got:" << Seen;
  }
  // A note may sit in another file of the program than its finding.
  for (const NoteExpectation &N : Spec.Notes) {
    bool Matched = false;
    for (const auto &[File, All] : A.ByFile)
      for (const json &F : All)
        for (const json &Note : F["notes"])
          if (Note["file"] == Path && Note["line"] == N.Line &&
              Note["message"].get<std::string>().find(N.Text) !=
                  std::string::npos)
            Matched = true;
    if (!Only.empty() && !Matched)
      continue; // the note may belong to a rule this run leaves out
    EXPECT_TRUE(Matched) << Path << ":" << N.Line << " with " << G.Name
                         << ": no finding has a note here containing \""
                         << N.Text << "\"";
  }
}

TEST_P(TestInput, FindingsMatchAnnotations) {
  auto [G, Program] = splitCase(GetParam());
  std::string Only = onlyRule();
  if (!Only.empty()) {
    bool Names = false;
    for (const Expectation &E : programAnnotations(Program).Findings)
      Names |= E.Rule == Only;
    if (!Names)
      GTEST_SKIP() << Program << " names no " << Only;
  }
  const Analysis &A = originals(G);
  ASSERT_FALSE(A.Output.is_discarded())
      << "torchlint did not print JSON (exit " << A.Run.ExitCode << "):\n"
      << A.Run.Stderr;
  ASSERT_TRUE(A.Output["translationUnits"].get<int>() > 0);
  for (const std::string &Unit : programUnits(Program)) {
    ASSERT_NE(readFile(G.Database).find("\"" + Unit + "\""), std::string::npos)
        << Unit << " is missing from " << G.Database
        << " (configure test-inputs/ again: ctest -R configure_test_inputs)";
    auto Failure = A.Failures.find(Unit);
    ASSERT_TRUE(Failure == A.Failures.end())
        << Unit << " was not analyzed against " << G.Name << ": "
        << Failure->second;
  }
  for (const std::string &File : programFiles(Program))
    expectFindingsMatch(G, File, A);
}

INSTANTIATE_TEST_SUITE_P(Programs, TestInput,
                         ::testing::ValuesIn(cases(/*GoldenOnly=*/false)),
                         testName);

class GoldenFile : public ::testing::TestWithParam<std::string> {};

/// Where a rule's fix-it was applied to Original, no finding of that rule
/// remains in its golden, analyzed at Analyzed.
void expectNoFindingOfAnAppliedFix(const Generation &G,
                                   const std::string &Original,
                                   const std::string &Analyzed,
                                   const Analysis &Golden) {
  // Where a rule's fix-it was applied, no finding of that rule remains: what
  // is left on a line is exactly what offered no fix-it there. A fix of
  // another rule may bring new findings where the program had none (moving a
  // batch to the GPU makes it a host-to-device copy), as applying fixes one
  // after another does in clang-tidy.
  std::string Text = readFile(Original);
  auto LineAt = [&](size_t Offset) {
    return 1 + std::count(Text.begin(), Text.begin() + Offset, '\n');
  };
  std::vector<json> Fixes;
  std::vector<json> Before;
  if (auto It = originals(G).ByFile.find(Original);
      It != originals(G).ByFile.end())
    Before = It->second;
  for (const json &F : Before)
    for (json Fix : F["fixes"]) {
      Fix["rule"] = F["rule"];
      Fixes.push_back(Fix);
    }
  // Fixes delete whole lines at most: an original line's number in the fixed
  // file is its own, less the lines deleted before it.
  std::map<long, long> OriginalLineOf;
  long Lines = std::count(Text.begin(), Text.end(), '\n') + 1;
  for (long Line = 1, Offset = 0; Line <= Lines; ++Line) {
    long Removed = 0;
    for (const json &Fix : Fixes) {
      size_t Start = Fix["offset"], Length = Fix["length"];
      std::string Replacement = Fix["replacement"];
      if (static_cast<long>(Start + Length) <= Offset)
        Removed += std::count(Text.begin() + Start,
                              Text.begin() + Start + Length, '\n') -
                   std::count(Replacement.begin(), Replacement.end(), '\n');
    }
    OriginalLineOf.emplace(Line - Removed, Line);
    size_t Next = Text.find('\n', Offset);
    Offset = Next == std::string::npos ? Text.size() : Next + 1;
  }
  // A fix that moves a statement (torch-setup-in-loop hoists a declaration
  // before its loop) deletes a line and inserts it elsewhere: a line whose
  // text, less its indentation, occurs once in each file is that line.
  auto UniqueLines = [](const std::string &File) {
    std::map<std::string, std::vector<long>> Where;
    std::istringstream In(File);
    std::string Line;
    for (long Number = 1; std::getline(In, Line); ++Number) {
      size_t First = Line.find_first_not_of(" \t");
      if (First != std::string::npos)
        Where[Line.substr(First)].push_back(Number);
    }
    return Where;
  };
  std::map<std::string, std::vector<long>> InOriginal = UniqueLines(Text),
                                            InFixed =
                                                UniqueLines(readFile(Analyzed));
  for (const auto &[Line, Numbers] : InFixed)
    if (auto It = InOriginal.find(Line); Numbers.size() == 1 &&
                                         It != InOriginal.end() &&
                                         It->second.size() == 1)
      OriginalLineOf[Numbers.front()] = It->second.front();

  using Key = std::pair<std::string, long>; // rule, original line
  std::map<Key, int> Remaining, Unfixable;
  std::set<Key> Fixed;
  std::set<std::string> RulesFixed;
  for (const json &F : Before) {
    Key Item{F["rule"], F["line"].get<long>()};
    if (F["fixes"].empty()) {
      ++Unfixable[Item];
    } else {
      Fixed.insert(Item);
      RulesFixed.insert(Item.first);
    }
  }
  if (auto It = Golden.ByFile.find(Analyzed); It != Golden.ByFile.end())
    for (const json &F : It->second)
      ++Remaining[{F["rule"], OriginalLineOf[F["line"].get<long>()]}];
  auto FixedByAnotherRule = [&](const std::string &Rule) {
    return RulesFixed.size() > RulesFixed.count(Rule);
  };
  for (const auto &[Item, Count] : Remaining) {
    int Expected = Unfixable.count(Item) ? Unfixable.at(Item) : 0;
    bool New = !Fixed.count(Item) && !Unfixable.count(Item);
    if (New && FixedByAnotherRule(Item.first))
      continue; // brought by another rule's fix
    EXPECT_EQ(Count, Expected)
        << goldenOf(Original) << " with " << G.Name << ": " << Item.first
        << " remains at (original) line " << Item.second
        << (Fixed.count(Item) ? ", where its fix-it was applied"
                              : ", more often than it offered no fix-it");
  }
  for (const auto &[Item, Count] : Unfixable)
    EXPECT_EQ(Remaining.count(Item) ? Remaining.at(Item) : 0, Count)
        << goldenOf(Original) << " with " << G.Name << ": " << Item.first
        << " at (original) line " << Item.second
        << " offered no fix-it but is gone";
}

TEST_P(GoldenFile, FixOutputMatchesGoldenByteForByte) {
  auto [G, Program] = splitCase(GetParam());
  const FixRun &R = fixedCopies(G);
  ASSERT_NE(R.Run.ExitCode, 2) << R.Run.Stderr;
  // A file without a golden must come out of --fix as it was.
  for (const std::string &File : programFiles(Program)) {
    std::string Golden = fs::exists(goldenOf(File)) ? goldenOf(File) : File;
    EXPECT_EQ(R.Fixed.at(copyPath(File, R.Directory)), readFile(Golden))
        << "torchlint --fix output with " << G.Name << " differs from "
        << fs::path(Golden).filename().string();
  }
}

TEST_P(GoldenFile, ParsesAndDrawsNoFindingOfAnAppliedFix) {
  auto [G, Program] = splitCase(GetParam());
  const GoldenRun &Run = goldenAnalysis(G);
  const Analysis &Golden = Run.Result;
  ASSERT_FALSE(Golden.Output.is_discarded()) << Golden.Run.Stderr;
  for (const std::string &Unit : programUnits(Program)) {
    auto Failure = Golden.Failures.find(copyPath(Unit, Run.Directory));
    ASSERT_TRUE(Failure == Golden.Failures.end())
        << goldenOf(Unit) << " does not parse with " << G.Name << ": "
        << Failure->second;
  }
  for (const std::string &Original : programFiles(Program))
    if (fs::exists(goldenOf(Original)))
      expectNoFindingOfAnAppliedFix(G, Original,
                                    copyPath(Original, Run.Directory), Golden);
}

INSTANTIATE_TEST_SUITE_P(Programs, GoldenFile,
                         ::testing::ValuesIn(cases(/*GoldenOnly=*/true)),
                         testName);

TEST(Specification, EveryProgramWithFixItsHasAGoldenFile) {
  for (const Generation &G : generations())
    for (const auto &[File, Findings] : originals(G).ByFile)
      for (const json &F : Findings)
        if (!F["fixes"].empty()) {
          fs::path Golden = goldenOf(File);
          EXPECT_TRUE(fs::exists(Golden))
              << File << " offers fix-its (line " << F["line"]
              << ") but has no golden " << Golden.filename();
          break;
        }
}

TEST(Specification, SomeProgramIsCxx20AgainstLibtorch2) {
  bool Found = false;
  for (const std::string &Name : programs(2))
    for (const std::string &File : programFiles(Name)) {
      std::string Text = readFile(File);
      if (Text.find("// torchlint-test:") != std::string::npos &&
          Text.find("c++20") != std::string::npos)
        Found = true;
    }
  EXPECT_TRUE(Found);
  EXPECT_NE(readFile(generation("libtorch2").Database).find("-std=gnu++20"),
            std::string::npos);
}

TEST(Specification, EveryRuleHasTenPositiveCases) {
  // A 2.4-API twin restates its program's cases in other names: its lines
  // are not cases of their own.
  std::map<std::string, int> Positives;
  for (const std::string &Name : programs())
    if (twinOf(Name).empty())
      for (const LineRule &Item : programAnnotations(Name).lineRules())
        ++Positives[Item.second];
  json Rules = originals(generations().front()).Output["rules"];
  ASSERT_FALSE(Rules.empty());
  for (const json &Rule : Rules)
    EXPECT_GE(Positives[Rule.get<std::string>()], 10)
        << Rule << " has fewer than 10 distinct positive cases in test-inputs/";
}

TEST(Specification, TwinsNameTheirPrograms) {
  for (const std::string &Name : programs()) {
    std::string Twin = twinOf(Name);
    if (!Twin.empty())
      EXPECT_TRUE(std::filesystem::exists(programPath(Twin)) ||
                  isMultiUnit(Twin))
          << Name << " is the twin of " << Twin << ", which does not exist";
  }
}

TEST(Specification, EveryRulePinsItsLevelAndMessage) {
  std::set<std::string> Pinned;
  for (const std::string &Name : programs())
    for (const Expectation &E : programAnnotations(Name).Findings)
      if (!E.Level.empty() && !E.Text.empty())
        Pinned.insert(E.Rule);
  for (const json &Rule : originals(generations().front()).Output["rules"])
    EXPECT_TRUE(Pinned.count(Rule.get<std::string>()))
        << Rule << " has no annotation of the form "
        << "// expect: rule [level] \"message words\" in test-inputs/";
}

// A finding's remedy is a note at the finding's own place, so one line may
// expect both.
TEST(Specification, AFindingAndItsNoteMayBeExpectedOnOneLine) {
  std::filesystem::path File =
      std::filesystem::temp_directory_path() / "torchlint-annotations.cpp";
  {
    std::ofstream Out(File);
    Out << "int x; // expect: torch-a [warning] \"what\" "
           "// expect-note: \"do this\"\n"
        << "int y; // expect-note: \"only a note\"\n";
  }
  Annotations Read = readAnnotations(File.string());
  std::filesystem::remove(File);
  ASSERT_EQ(Read.Findings.size(), 1u);
  EXPECT_EQ(Read.Findings[0].Rule, "torch-a");
  EXPECT_EQ(Read.Findings[0].Text, "what");
  ASSERT_EQ(Read.Notes.size(), 2u);
  EXPECT_EQ(Read.Notes[0].Line, 1u);
  EXPECT_EQ(Read.Notes[0].Text, "do this");
  EXPECT_EQ(Read.Notes[1].Line, 2u);
}

// Recipes name their scenario by the current id of the one list the rules,
// the runtime and the tests share.
TEST(Specification, EveryRecipeNamesASharedScenario) {
  int Recipes = 0;
  for (const Generation &G : generations())
    for (const auto &[File, Findings] : originals(G).ByFile)
      for (const json &F : Findings) {
        if (!F.contains("recipe"))
          continue;
        ++Recipes;
        std::string Id = F["recipe"].value("scenario", "");
        bool Current = false;
        for (const scenario::Entry &Scenario : scenario::All)
          Current |= Scenario.Id == Id;
        EXPECT_TRUE(Current) << File << ":" << F["line"] << ": recipe names '"
                             << Id << "', not a scenario of Scenarios.def";
      }
  EXPECT_GT(Recipes, 0);
}

TEST(Specification, SarifSaysWhichRulesAreOffByDefault) {
  const Analysis &A = originals(generations().front());
  json Log = json::parse(readFile(A.Sarif));
  size_t Off = 0;
  for (const json &Rule : Log["runs"][0]["tool"]["driver"]["rules"]) {
    bool Enabled = Rule["defaultConfiguration"]["enabled"].get<bool>();
    EXPECT_EQ(Enabled,
              !rulesOffByDefault().count(Rule["id"].get<std::string>()))
        << Rule["id"];
    Off += !Enabled;
  }
  EXPECT_EQ(Off, rulesOffByDefault().size());
  EXPECT_FALSE(rulesOffByDefault().empty());
}

TEST(Specification, EveryRuleHasItsDocsPage) {
  fs::path Docs = fs::path(testInputsDir()).parent_path() / "docs" / "rules";
  for (const json &Rule : originals(generations().front()).Output["rules"])
    EXPECT_TRUE(fs::exists(Docs / (Rule.get<std::string>() + ".md")))
        << "no docs/rules/" << Rule.get<std::string>() << ".md";
}

} // namespace
} // namespace torchlint::test
