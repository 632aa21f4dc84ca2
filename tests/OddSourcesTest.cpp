//===--- OddSourcesTest.cpp - Sources as they come
//-------------------------===//
//
// Legacy encodings, CRLF and BOMs, huge and deeply nested files, #line,
// empty files and directories: each is analyzed, or is one clean error for
// its unit, and never a crash. These sources are small C++ without libtorch,
// so each run costs milliseconds.
//
//===----------------------------------------------------------------------===//

#include "Subprocess.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

using nlohmann::json;

namespace torchlint::test {
namespace {

/// torchlint over one source with these contents, as JSON.
RunResult analyzeSource(const std::string &Contents,
                        const std::string &Name = "odd.cpp") {
  std::string Dir = temporaryDirectory();
  std::string Source = Dir + "/" + Name;
  writeFile(Source, Contents);
  writeFile(Dir + "/compile_commands.json",
            json::array({{{"directory", Dir},
                          {"file", Source},
                          {"command", "c++ -std=c++17 -c " + Source}}})
                .dump());
  return run(torchlintBinary(), {"--format=json", "--quiet", Dir});
}

void expectAnalyzed(const RunResult &R) {
  EXPECT_EQ(R.ExitCode, 0) << R.Stderr;
  EXPECT_EQ(R.Stderr, "");
  json Output = json::parse(R.Stdout, nullptr, false);
  ASSERT_FALSE(Output.is_discarded()) << R.Stdout;
  EXPECT_EQ(Output["translationUnits"], 1);
  EXPECT_TRUE(Output["failures"].empty()) << R.Stdout;
}

/// One error line naming the unit, the run still reported.
void expectCleanFailure(const RunResult &R, const std::string &Needle) {
  EXPECT_EQ(R.ExitCode, 2) << R.Stderr;
  EXPECT_EQ(std::count(R.Stderr.begin(), R.Stderr.end(), '\n'), 1) << R.Stderr;
  EXPECT_NE(R.Stderr.find(Needle), std::string::npos) << R.Stderr;
  EXPECT_EQ(R.Stderr.find("Stack dump"), std::string::npos) << R.Stderr;
  json Output = json::parse(R.Stdout, nullptr, false);
  ASSERT_FALSE(Output.is_discarded()) << R.Stdout;
  EXPECT_EQ(Output["failures"].size(), 1u);
}

TEST(OddSources, EmptyFile) { expectAnalyzed(analyzeSource("")); }

TEST(OddSources, CrlfAndByteOrderMark) {
  expectAnalyzed(
      analyzeSource("\xEF\xBB\xBF"
                    "// a Windows file\r\n"
                    "int twice(int x) {\r\n  return 2 * x;\r\n}\r\n"));
}

TEST(OddSources, LegacyEncodingInCommentsAndStrings) {
  // GBK, as Chinese libtorch tutorials are saved: not UTF-8.
  expectAnalyzed(analyzeSource("// \xC4\xA3\xD0\xCD\xD1\xB5\xC1\xB7\n"
                               "const char *label = \"\xD1\xB5\xC1\xB7\";\n"));
}

TEST(OddSources, LineDirectives) {
  expectAnalyzed(analyzeSource("#line 1000 \"generated.cpp\"\n"
                               "int f() { return 1; }\n"
                               "#line 7\n"
                               "int g() { return f(); }\n"));
}

TEST(OddSources, TenMegabytesOfGeneratedCode) {
  std::string Source;
  Source.reserve(10 << 20);
  for (int I = 0; Source.size() < (10u << 20); ++I)
    Source += "static int value_" + std::to_string(I) + " = " +
              std::to_string(I) + " * 3 + 1;\n";
  expectAnalyzed(analyzeSource(Source));
}

TEST(OddSources, DeeplyNestedExpression) {
  // Deeper than clang's bracket limit: clang's error, not a crash.
  std::string Deep = "int x = " + std::string(5000, '(') + "1" +
                     std::string(5000, ')') + ";\n";
  expectCleanFailure(analyzeSource(Deep), "odd.cpp");
  // Within it, but deep for a recursive analysis.
  std::string Nested = "int y = 0";
  for (int I = 0; I < 2000; ++I)
    Nested += " + 1";
  expectAnalyzed(analyzeSource(Nested + ";\n"));
}

TEST(OddSources, DoesNotCompile) {
  expectCleanFailure(analyzeSource("int main() { return 0 }\n"),
                     "expected ';' after return statement");
  expectCleanFailure(analyzeSource("#include \"no_such_header.h\"\n"),
                     "'no_such_header.h' file not found");
}

TEST(OddSources, DirectoryGivenAsASource) {
  std::string Dir = temporaryDirectory();
  writeFile(
      Dir + "/compile_commands.json",
      json::array(
          {{{"directory", Dir}, {"file", Dir}, {"command", "c++ -c " + Dir}}})
          .dump());
  expectCleanFailure(run(torchlintBinary(), {"--format=json", "--quiet", Dir}),
                     "is a directory");
}

TEST(OddSources, UnitOverTheTimeoutIsReportedAndTheRunGoesOn) {
  std::string Dir = temporaryDirectory();
  // Constant evaluation that would run for minutes: clang cannot be
  // interrupted, the child process that runs it can.
  writeFile(Dir + "/slow.cpp",
            "constexpr unsigned long long spin() {\n"
            "  unsigned long long s = 0;\n"
            "  for (unsigned long long i = 0; i < 4000000000ULL; ++i)\n"
            "    s += i ^ (s >> 3);\n"
            "  return s;\n"
            "}\n"
            "static_assert(spin() != 1, \"\");\n");
  writeFile(Dir + "/quick.cpp", "int twice(int x) { return 2 * x; }\n");
  json Database = json::array();
  for (const char *Name : {"slow.cpp", "quick.cpp"})
    Database.push_back(
        {{"directory", Dir},
         {"file", Dir + "/" + Name},
         {"command", "c++ -std=c++17 -fconstexpr-steps=4294967295 -c " + Dir +
                         "/" + Name}});
  writeFile(Dir + "/compile_commands.json", Database.dump());
  RunResult R =
      run(torchlintBinary(), {"--format=json", "--quiet", "--timeout=2", Dir});
  expectCleanFailure(R, "slow.cpp: error: not analyzed: it took longer than "
                        "--timeout=2 seconds");
  json Output = json::parse(R.Stdout, nullptr, false);
  ASSERT_FALSE(Output.is_discarded()) << R.Stdout;
  EXPECT_EQ(Output["translationUnits"], 2);
  EXPECT_EQ(Output["failures"][0]["file"], Dir + "/slow.cpp");
}

} // namespace
} // namespace torchlint::test
