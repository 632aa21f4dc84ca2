//===--- TestInputsTest.cpp - test-inputs/ is the specification -----------===//
//
// Every program in test-inputs/ is analyzed as a user would analyze it: the
// torchlint binary over the compilation database CMake exported for the
// project, once against each generation of libtorch headers (Debian 12's
// 1.13, and 2.x unpacked by scripts/install-deps.sh). Each `// expect:
// <rule>` annotation must be matched by a finding on its line, and no other
// finding may appear. Each golden `.fixed.cpp`
// must equal the output of --fix byte for byte, parse cleanly, and draw no
// finding of a fix that was applied.
//
//===----------------------------------------------------------------------===//

#include "TestInputs.h"

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

TEST(Specification, EveryProgramWithFixItsHasAGoldenFile) {
  for (const Generation &G : generations())
    for (const auto &[File, Findings] : originals(G).ByFile)
      for (const json &F : Findings)
        if (!F["fixes"].empty()) {
          fs::path Golden = fs::path(File).replace_extension(".fixed.cpp");
          EXPECT_TRUE(fs::exists(Golden))
              << File << " offers fix-its (line " << F["line"]
              << ") but has no golden " << Golden.filename();
          break;
        }
}

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
