//===--- FixSafetyTest.cpp - --fix on files as users have them ------------===//
//
// --fix is idempotent: run over its own output (the golden files, which the
// specification tests hold equal to it) it changes nothing. And a program
// saved with Windows line endings and a byte order mark draws the same
// findings, on the same lines and columns, and its fixed file is the golden
// file with the same line endings and mark.
//
//===----------------------------------------------------------------------===//

#include "TestInputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <tuple>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {
namespace {

const std::string ByteOrderMark = "\xEF\xBB\xBF";

std::string withWindowsLineEndings(const std::string &Text) {
  std::string Result = ByteOrderMark;
  for (char C : Text) {
    if (C == '\n')
      Result += '\r';
    Result += C;
  }
  return Result;
}

TEST(FixSafety, SecondFixRunChangesNothing) {
  for (const Generation &G : generations()) {
    const GoldenRun &Again = goldenAnalysis(G);
    ASSERT_NE(Again.Result.Run.ExitCode, 2) << Again.Result.Run.Stderr;
    EXPECT_NE(Again.Result.Run.Stderr.find("applied 0 fix-its in 0 files"),
              std::string::npos)
        << G.Name << ": " << Again.Result.Run.Stderr;
    for (const std::string &Name : goldens(G.Major))
      for (const std::string &File : programFiles(Name)) {
        std::string Golden = fs::exists(goldenOf(File)) ? goldenOf(File) : File;
        EXPECT_EQ(readFile(copyPath(File, Again.Directory)), readFile(Golden))
            << fs::path(Golden).filename().string()
            << " changed on a second --fix against " << G.Name;
      }
  }
}

using Place = std::tuple<std::string, unsigned, unsigned, std::string>;

std::multiset<Place> places(const json &Findings, unsigned FirstLine) {
  std::multiset<Place> Result;
  for (const json &F : Findings)
    if (F["line"].get<unsigned>() >= FirstLine)
      Result.insert({fs::path(F["file"].get<std::string>()).stem().string(),
                     F["line"].get<unsigned>(), F["column"].get<unsigned>(),
                     F["rule"].get<std::string>()});
  return Result;
}

/// Whether a fix-it writes a line break or replaces text that holds one:
/// only those meet the file's line endings.
bool crossesALineBreak(const json &Fix, const std::string &Text) {
  size_t Offset = Fix["offset"].get<size_t>();
  size_t Length = Fix["length"].get<size_t>();
  return Fix["replacement"].get<std::string>().find('\n') !=
             std::string::npos ||
         Text.substr(Offset, Length).find('\n') != std::string::npos;
}

/// For each rule whose fix-its cross line breaks, the first program with a
/// golden file where they do: a fix run parses each program several times,
/// and line endings concern each rule's fixes, not each program.
std::vector<std::string> onePerLineBreakingRule(const Generation &G) {
  const std::vector<std::string> WithGolden = singleFile(goldens(G.Major));
  std::set<std::string> Rules, Names;
  for (const json &F : originals(G).Output["findings"]) {
    std::string File = F["file"].get<std::string>();
    std::string Name = fs::path(File).stem().string();
    if (std::find(WithGolden.begin(), WithGolden.end(), Name) ==
            WithGolden.end() ||
        Rules.count(F["rule"].get<std::string>()))
      continue;
    std::string Text = readFile(File);
    for (const json &Fix : F["fixes"])
      if (crossesALineBreak(Fix, Text)) {
        Rules.insert(F["rule"].get<std::string>());
        Names.insert(Name);
        break;
      }
  }
  return {Names.begin(), Names.end()};
}

TEST(FixSafety, WindowsLineEndingsAndByteOrderMarkKeepColumnsAndEndings) {
  const Generation &G = generations().front();
  const std::vector<std::string> Programs = onePerLineBreakingRule(G);
  ASSERT_FALSE(Programs.empty());
  std::string Directory = temporaryDirectory();
  for (const std::string &Name : Programs)
    writeFile(Directory + "/" + Name + ".cpp",
              withWindowsLineEndings(readFile(programPath(Name))));
  std::string Database = databaseFor(G, Programs, Directory);
  RunResult Fixed = run(torchlintBinary(), {"--fix", "--format=json", "-j", "2",
                                            cacheDirectory(G), Database});
  json Output = json::parse(Fixed.Stdout, nullptr, false);
  ASSERT_FALSE(Output.is_discarded()) << Fixed.Stderr;
  EXPECT_TRUE(Output["failures"].empty()) << Fixed.Stdout;

  // The mark shifts the first line's byte columns only; no finding is there.
  json Expected = json::array();
  for (const json &F : originals(G).Output["findings"])
    if (std::find(Programs.begin(), Programs.end(),
                  fs::path(F["file"].get<std::string>()).stem().string()) !=
        Programs.end())
      Expected.push_back(F);
  EXPECT_EQ(places(Output["findings"], 2), places(Expected, 2));
  EXPECT_EQ(places(Output["findings"], 1).size(), Expected.size());

  for (const std::string &Name : Programs)
    EXPECT_EQ(readFile(Directory + "/" + Name + ".cpp"),
              withWindowsLineEndings(readFile(programPath(Name, ".fixed.cpp"))))
        << Name << ".cpp, saved with CRLF and a BOM, was not fixed as its "
        << "golden file with the same line endings";
}

} // namespace
} // namespace torchlint::test
