//===--- UnitTest.cpp - The CLI's pieces, without parsing C++ -------------===//

#include "analysis/AnalysisContext.h"
#include "analysis/DeviceFlow.h"
#include "analysis/Summaries.h"
#include "cache/CacheDirectory.h"
#include "cache/FileStamps.h"
#include "cache/PrecompiledPrefix.h"
#include "cache/ResultCache.h"
#include "common/CheckGlob.h"
#include "compile/CompileDatabase.h"
#include "compile/DriverCommand.h"
#include "compile/ForeignFlags.h"
#include "compile/Sharding.h"
#include "compile/UntrustedFlags.h"
#include "driver/Configuration.h"
#include "driver/FixApplier.h"
#include "driver/KeptUnits.h"
#include "driver/LineFilter.h"
#include "driver/ProgramRounds.h"
#include "output/Fingerprint.h"
#include "output/RuleDocs.h"
#include "output/SarifMerge.h"
#include "output/Suppressions.h"
#include "output/Writers.h"
#include "rules/RuleRegistry.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace torchlint {
namespace {

TEST(CommandLine, SplitsLikeAShell) {
  EXPECT_EQ(splitCommandLine("c++ -DA=1 -c a.cpp"),
            (std::vector<std::string>{"c++", "-DA=1", "-c", "a.cpp"}));
  EXPECT_EQ(splitCommandLine(R"(c++ "-DNAME=\"a b\"" 'x y' a\ b)"),
            (std::vector<std::string>{"c++", "-DNAME=\"a b\"", "x y", "a b"}));
  EXPECT_EQ(splitCommandLine("  c++\t-c  "),
            (std::vector<std::string>{"c++", "-c"}));
  EXPECT_EQ(splitCommandLine("c++ ''"), (std::vector<std::string>{"c++", ""}));
}

TEST(CompileDatabase, BothFormsAndRelativePaths) {
  llvm::Expected<CompileDatabase> DB = parseCompileDatabase(
      R"([{"directory": "build", "file": "../src/a.cpp",
           "command": "c++ -I inc -c ../src/a.cpp"},
          {"directory": "/abs", "file": "/abs/b.cpp",
           "arguments": ["clang++", "-c", "b.cpp"]}])",
      "/project/compile_commands.json");
  ASSERT_TRUE(static_cast<bool>(DB)) << llvm::toString(DB.takeError());
  ASSERT_EQ(DB->Entries.size(), 2u);
  EXPECT_EQ(DB->Entries[0].Directory, "/project/build");
  EXPECT_EQ(DB->Entries[0].File, "/project/src/a.cpp");
  EXPECT_EQ(
      DB->Entries[0].Arguments,
      (std::vector<std::string>{"c++", "-I", "inc", "-c", "../src/a.cpp"}));
  EXPECT_EQ(DB->Entries[1].File, "/abs/b.cpp");
  EXPECT_EQ(DB->Entries[1].Arguments.front(), "clang++");
}

using Argv = std::vector<std::string>;

TEST(ForeignFlags, UnknownFlagsGoTheirValuesStay) {
  EXPECT_EQ(adaptForeignFlags({"g++", "-fno-gnu-unique", "-I", "-fipa-pta",
                               "-Xclang", "-fconcepts-ts", "-c", "a.cpp"}),
            (Argv{"g++", "-I", "-fipa-pta", "-Xclang", "-fconcepts-ts", "-c",
                  "a.cpp"}));
}

TEST(ForeignFlags, ForcedIncludesBypassTheDriversHeaderProbe) {
  Argv Expected{"c++", "-Xclang", "-include", "-Xclang", "x.h", "a.cpp"};
  EXPECT_EQ(adaptForeignFlags({"c++", "-include", "x.h", "a.cpp"}), Expected);
  EXPECT_EQ(adaptForeignFlags({"c++", "-includex.h", "a.cpp"}), Expected);
  EXPECT_EQ(adaptForeignFlags({"c++", "--include=x.h", "a.cpp"}), Expected);
}

TEST(ForeignFlags, MsvcPrecompiledHeadersGo) {
  EXPECT_TRUE(isClDriverMode({"C:/VC/bin/cl.exe"}));
  EXPECT_TRUE(isClDriverMode({"clang++", "--driver-mode=cl"}));
  EXPECT_FALSE(isClDriverMode({"clang-cl", "--driver-mode=g++"}));
  EXPECT_EQ(adaptForeignFlags({"cl.exe", "/Yustdafx.h", "/Fpa.pch", "/Y-",
                               "/FIstdafx.h", "/c", "a.cpp"}),
            (Argv{"cl.exe", "/FIstdafx.h", "/c", "a.cpp"}));
}

TEST(UntrustedFlags, PreprocessorPassThroughKeepsOnlyMacros) {
  SanitizedCommand Safe =
      dropUnsafeFlags({"c++", "-Wp,-D_FORTIFY_SOURCE=2,-UNDEBUG", "-Wp,-MD,a.d",
                       "-Xpreprocessor", "-DX", "-Xpreprocessor",
                       "-dependency-file", "-c", "a.cpp"});
  EXPECT_EQ(Safe.Arguments, (Argv{"c++", "--no-default-config",
                                  "-Wp,-D_FORTIFY_SOURCE=2,-UNDEBUG",
                                  "-Xpreprocessor", "-DX", "-c", "a.cpp"}));
  EXPECT_EQ(Safe.Dropped, (Argv{"'-Wp,-MD,a.d' (it passes options to clang's "
                                "internals unchecked)",
                                "'-Xpreprocessor -dependency-file' (it passes "
                                "options to clang's internals unchecked)"}));
}

// Found by fuzzing: the driver's aliases of the flags that write files.
TEST(UntrustedFlags, AliasesAreTheFlagsTheyStandFor) {
  SanitizedCommand Safe =
      dropUnsafeFlags({"c++", "--save-temps", "--write-dependencies",
                       "--output=a.o", "--output", "b.o", "-c", "a.cpp"});
  EXPECT_EQ(Safe.Arguments,
            (Argv{"c++", "--no-default-config", "-c", "a.cpp"}));
  EXPECT_EQ(Safe.Dropped, (Argv{"'--save-temps' (it writes files)"}));
}

TEST(UntrustedFlags, ClangClPassesFlagsThroughSlashClang) {
  SanitizedCommand Safe =
      dropUnsafeFlags({"cl.exe", "/clang:-fplugin=x.so", "/clang:-O2",
                       "-Xclang", "-load", "-Xclang", "x.so", "/c", "a.cpp"});
  EXPECT_EQ(Safe.Arguments, (Argv{"cl.exe", "--no-default-config", "/clang:-O2",
                                  "/c", "a.cpp"}));
  ASSERT_EQ(Safe.Dropped.size(), 2u);
  EXPECT_EQ(Safe.Dropped[1],
            "'-Xclang -load -Xclang x.so' (it can load code into torchlint)");
}

TEST(CompileDatabase, ProblemsNameTheFileAndTheEntry) {
  auto Error = [](const std::string &Text) {
    llvm::Expected<CompileDatabase> DB = parseCompileDatabase(Text, "/db.json");
    return DB ? std::string("no error") : llvm::toString(DB.takeError());
  };
  EXPECT_EQ(Error("[1, 2"), "/db.json: invalid JSON at line 1, column 6: "
                            "syntax error while parsing array - unexpected "
                            "end of input; expected ']'");
  // Found by fuzzing: a number too large for a double is not a parse error
  // to nlohmann, and it ended the run.
  EXPECT_EQ(Error("[1e99999]"),
            "/db.json: invalid JSON: number overflow parsing '1e99999'");
  EXPECT_EQ(Error("[{\"file\": \"a.cpp\", \"command\": \"c++\"}]"),
            "/db.json: entry 1 (a.cpp) has no \"directory\" string");
  EXPECT_EQ(Error("[{\"directory\": \"/\", \"file\": \"a.cpp\", "
                  "\"arguments\": [\"c++\", 3]}]"),
            "/db.json: entry 1 (a.cpp) has a non-string in \"arguments\"");
  EXPECT_EQ(Error("[{\"directory\": \"/\", \"file\": \"a.cpp\", "
                  "\"command\": \"   \"}]"),
            "/db.json: entry 1 (a.cpp) has an empty \"command\"");
  EXPECT_EQ(Error("[]"), "no error");
}

// The entries are built as the JSON is read, with no document: what a
// document would give is the specification.
TEST(CompileDatabase, ReadAsADocumentWouldBe) {
  auto Read = [](const std::string &Text) {
    llvm::Expected<CompileDatabase> DB = parseCompileDatabase(Text, "/db.json");
    if (!DB)
      return llvm::toString(DB.takeError());
    std::string Shown;
    for (const CompileEntry &Entry : DB->Entries)
      Shown += Entry.File + ":" + llvm::join(Entry.Arguments, " ") + ";";
    return Shown;
  };
  // The last of two equal keys counts, whatever the first was.
  EXPECT_EQ(Read(R"([{"directory": "/", "file": 3, "file": "a.cpp",
                     "arguments": 5, "arguments": ["c++", "-c"]}])"),
            "/a.cpp:c++ -c;");
  EXPECT_EQ(Read(R"([{"directory": "/", "file": "a.cpp",
                     "arguments": ["c++"], "arguments": []}])"),
            "/db.json: entry 1 (a.cpp) has an \"arguments\" field that is not "
            "a non-empty array of strings");
  // Other fields, however deep, are passed over; "arguments" wins over
  // "command", and only its own elements must be strings.
  EXPECT_EQ(Read(R"([{"output": {"file": 1, "arguments": [[]]},
                     "directory": "/", "command": "cc -c b.cpp",
                     "file": "b.cpp", "x": [{"directory": 2}]},
                    {"arguments": ["c++", "c.cpp"], "command": "",
                     "directory": "/d", "file": "c.cpp"}])"),
            "/b.cpp:cc -c b.cpp;/d/c.cpp:c++ c.cpp;");
  EXPECT_EQ(Read(R"([{"directory": "/", "file": "a.cpp",
                     "arguments": ["c++", ["-c"]]}])"),
            "/db.json: entry 1 (a.cpp) has a non-string in \"arguments\"");
  // The first entry with a problem is the one named, unless the JSON is
  // malformed further on.
  EXPECT_EQ(Read(R"([{"directory": "/", "file": "a.cpp", "command": "c"},
                    7, {"file": "b.cpp"}])"),
            "/db.json: entry 2 is not a JSON object");
  EXPECT_EQ(Read("[7, {\"file\": }]"),
            "/db.json: invalid JSON at line 1, column 14: syntax error while "
            "parsing value - unexpected '}'; expected '[', '{', or a literal");
  EXPECT_EQ(Read(R"({"directory": "/"})"),
            "/db.json: expected a JSON array of compile commands");
}

TEST(Configuration, CheckOptionsInBothForms) {
  auto Mapping = parseCheckOptions("Checks: '-*,torch-*'\n"
                                   "CheckOptions:\n"
                                   "  torch-a.Workers: '4'\n"
                                   "  other-check.X: y\n",
                                   ".clang-tidy");
  ASSERT_TRUE(static_cast<bool>(Mapping))
      << llvm::toString(Mapping.takeError());
  EXPECT_EQ(Mapping->at("torch-a.Workers"), "4");
  EXPECT_EQ(MapOptions(*Mapping).get("torch-a.Workers"), "4");
  EXPECT_EQ(MapOptions(*Mapping).get("torch-a.Other"), std::nullopt);

  auto List = parseCheckOptions("CheckOptions:\n"
                                "  - key: torch-a.Workers\n"
                                "    value: 2\n",
                                ".clang-tidy");
  ASSERT_TRUE(static_cast<bool>(List)) << llvm::toString(List.takeError());
  EXPECT_EQ(List->at("torch-a.Workers"), "2");

  auto Bad = parseCheckOptions("CheckOptions: [unclosed\n", "/p/.clang-tidy");
  ASSERT_FALSE(static_cast<bool>(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError())
                .rfind("/p/.clang-tidy: invalid YAML at line", 0),
            0u);
  auto Scalar = parseCheckOptions("CheckOptions: 3\n", "/p/.clang-tidy");
  ASSERT_FALSE(static_cast<bool>(Scalar));
  EXPECT_EQ(llvm::toString(Scalar.takeError()),
            "/p/.clang-tidy: CheckOptions must be a mapping or a list");
}

TEST(CheckGlob, ClangTidySemantics) {
  CheckGlob All("torch-*");
  EXPECT_TRUE(All.contains("torch-device-mismatch"));
  EXPECT_FALSE(All.contains("bugprone-foo"));
  CheckGlob Narrow("torch-*,-*,torch-device-*");
  EXPECT_TRUE(Narrow.contains("torch-device-mismatch"));
  EXPECT_FALSE(Narrow.contains("torch-unchecked-cuda"));
  CheckGlob Removed("torch-*, -torch-unchecked-cuda");
  EXPECT_FALSE(Removed.contains("torch-unchecked-cuda"));
  EXPECT_TRUE(Removed.contains("torch-hardcoded-cpu-device"));
  EXPECT_TRUE(globMatches("*-cuda", "torch-unchecked-cuda"));
  EXPECT_TRUE(globMatches("t*h-*-c*a", "torch-unchecked-cuda"));
  EXPECT_FALSE(globMatches("torch", "torch-unchecked-cuda"));
  EXPECT_FALSE(CheckGlob("torch-(x)").invalid().empty());
}

TEST(CheckGlob, DefaultSetLeavesOutRulesOffByDefault) {
  CheckGlob Default(defaultChecks());
  for (const RuleEntry &Entry : allRules())
    EXPECT_EQ(Default.contains(Entry.Info.Id), Entry.Info.EnabledByDefault)
        << Entry.Info.Id;
  // The user's globs come after the default set and can name such a rule.
  EXPECT_TRUE(CheckGlob(defaultChecks() + ",*")
                  .contains("torch-data-parallel-per-step"));
  EXPECT_TRUE(CheckGlob(defaultChecks() + ",torch-data-parallel-*")
                  .contains("torch-data-parallel-per-step"));
  EXPECT_FALSE(CheckGlob(defaultChecks() + ",-torch-device-mismatch")
                   .contains("torch-data-parallel-per-step"));
}

TEST(Suppressions, Forms) {
  std::string Text = "a; // NOLINT\n"
                     "b; // NOLINT(torch-device-mismatch)\n"
                     "// NOLINTNEXTLINE(torch-*)\n"
                     "c;\n"
                     "d; // NOLINT(readability-foo)\n"
                     "// NOLINTBEGIN(torch-unchecked-cuda)\n"
                     "e;\n"
                     "// NOLINTEND(torch-unchecked-cuda)\n"
                     "f; // NOLINTNEXTLINE\n"
                     "g;\n";
  EXPECT_TRUE(isSuppressed(Text, 1, "torch-x"));
  EXPECT_TRUE(isSuppressed(Text, 2, "torch-device-mismatch"));
  EXPECT_FALSE(isSuppressed(Text, 2, "torch-unchecked-cuda"));
  EXPECT_TRUE(isSuppressed(Text, 4, "torch-anything"));
  EXPECT_FALSE(isSuppressed(Text, 5, "torch-device-mismatch"));
  EXPECT_TRUE(isSuppressed(Text, 7, "torch-unchecked-cuda"));
  EXPECT_FALSE(isSuppressed(Text, 7, "torch-device-mismatch"));
  EXPECT_FALSE(isSuppressed(Text, 9, "torch-x"))
      << "NOLINTNEXTLINE is no NOLINT";
  EXPECT_TRUE(isSuppressed(Text, 10, "torch-x"));
}

FixIt fix(unsigned Offset, unsigned Length, std::string Text) {
  return FixIt{"f", Offset, Length, std::move(Text)};
}

TEST(Fixes, AppliedInOrderAndDuplicatesMerged) {
  std::vector<FixIt> Fixes = {fix(6, 0, ".to(d)"), fix(0, 1, "y"),
                              fix(6, 0, ".to(d)")};
  ASSERT_TRUE(normalizeFixes(Fixes));
  EXPECT_EQ(Fixes.size(), 2u);
  EXPECT_EQ(applyToText("x = f(a);", Fixes), "y = f(.to(d)a);");
}

TEST(Fixes, OverlapsAreRefused) {
  std::vector<FixIt> Overlap = {fix(0, 4, "a"), fix(2, 4, "b")};
  EXPECT_FALSE(normalizeFixes(Overlap));
  std::vector<FixIt> TwoInsertions = {fix(3, 0, "a"), fix(3, 0, "b")};
  EXPECT_FALSE(normalizeFixes(TwoInsertions));
}

TEST(Fixes, FileLeftUntouchedOnOverlapAndPermissionsKept) {
  fs::path Dir = fs::temp_directory_path() / "torchlint-unit-fixes";
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  std::string Overlapping = (Dir / "overlap.cpp").string();
  std::string Good = (Dir / "good.cpp").string();
  std::ofstream(Overlapping) << "int a = 1;\n";
  std::ofstream(Good) << "int b = 2;\n";
  chmod(Good.c_str(), 0640);

  Finding One, Two, Three;
  One.FixIts = {FixIt{Overlapping, 4, 1, "x"}};
  Two.FixIts = {FixIt{Overlapping, 4, 3, "y = 2"}};
  Three.FixIts = {FixIt{Good, 4, 1, "c"}};
  SourceCache Sources;
  FixOutcome Outcome = applyFixes({One, Two, Three}, Sources);

  EXPECT_EQ(Outcome.Applied, 1u);
  ASSERT_EQ(Outcome.Refused.size(), 1u);
  EXPECT_NE(Outcome.Refused[0].find("overlap.cpp: fix-its overlap"),
            std::string::npos);
  std::string Text;
  std::getline(std::ifstream(Overlapping), Text);
  EXPECT_EQ(Text, "int a = 1;");
  std::getline(std::ifstream(Good), Text);
  EXPECT_EQ(Text, "int c = 2;");
  struct stat Status;
  stat(Good.c_str(), &Status);
  EXPECT_EQ(Status.st_mode & 0777, 0640u);
  EXPECT_EQ(
      std::distance(fs::directory_iterator(Dir), fs::directory_iterator()), 2)
      << "no temporary file is left behind";
  fs::remove_all(Dir);
}

namespace {
std::string slurp(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(In), {});
}
} // namespace

TEST(Fixes, RefusedWhenTheFileChangedSinceItWasAnalyzed) {
  fs::path Dir = fs::temp_directory_path() / "torchlint-unit-changed";
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  std::string File = (Dir / "a.cpp").string();
  std::ofstream(File, std::ios::binary) << "int a = 1;\n";
  Finding F;
  F.FixIts = {FixIt{File, 4, 1, "b"}};
  // Analyzed as "int a = 2;": same length, other text.
  std::map<std::string, uint64_t> Analyzed = {
      {File, textDigest("int a = 2;\n")}};
  SourceCache Sources;
  FixOutcome Outcome = applyFixes({F}, Sources, Analyzed);
  EXPECT_EQ(Outcome.Applied, 0u);
  ASSERT_EQ(Outcome.Refused.size(), 1u);
  EXPECT_NE(Outcome.Refused[0].find("changed since it was analyzed"),
            std::string::npos);
  EXPECT_EQ(slurp(File), "int a = 1;\n");

  Analyzed[File] = textDigest("int a = 1;\n");
  SourceCache Fresh;
  EXPECT_EQ(applyFixes({F}, Fresh, Analyzed).Applied, 1u);
  EXPECT_EQ(slurp(File), "int b = 1;\n");
  fs::remove_all(Dir);
}

TEST(Fixes, ReadOnlyFileIsLeftAsItWas) {
  fs::path Dir = fs::temp_directory_path() / "torchlint-unit-readonly";
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  std::string File = (Dir / "a.cpp").string();
  std::ofstream(File, std::ios::binary) << "int a = 1;\n";
  chmod(File.c_str(), 0444);
  Finding F;
  F.FixIts = {FixIt{File, 4, 1, "b"}};
  SourceCache Sources;
  FixOutcome Outcome = applyFixes({F}, Sources);
  EXPECT_EQ(Outcome.Applied, 0u);
  ASSERT_EQ(Outcome.Refused.size(), 1u);
  EXPECT_NE(Outcome.Refused[0].find("a.cpp: is read-only"), std::string::npos);
  EXPECT_EQ(slurp(File), "int a = 1;\n");
  struct stat Status;
  stat(File.c_str(), &Status);
  EXPECT_EQ(Status.st_mode & 0777, 0444u);
  fs::remove_all(Dir);
}

TEST(Fixes, InsertedLineBreaksFollowTheFile) {
  fs::path Dir = fs::temp_directory_path() / "torchlint-unit-crlf";
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  std::string Crlf = (Dir / "crlf.cpp").string();
  std::string Lf = (Dir / "lf.cpp").string();
  std::ofstream(Crlf, std::ios::binary) << "void f() {\r\n  g();\r\n}\r\n";
  std::ofstream(Lf, std::ios::binary) << "void f() {\n  g();\n}\n";
  Finding F;
  F.FixIts = {FixIt{Crlf, 10, 0, "\n  h();"}, FixIt{Lf, 10, 0, "\n  h();"}};
  SourceCache Sources;
  EXPECT_EQ(applyFixes({F}, Sources).Applied, 2u);
  EXPECT_EQ(slurp(Crlf), "void f() {\r\n  h();\r\n  g();\r\n}\r\n");
  EXPECT_EQ(slurp(Lf), "void f() {\n  h();\n  g();\n}\n");
  fs::remove_all(Dir);
}

TEST(Sharding, EveryEntryInExactlyOneBalancedShard) {
  std::vector<CompileEntry> Entries;
  std::map<std::string, uint64_t> Sizes;
  // One large file and many small ones: counting files alone would put the
  // large one with as many small ones as the others.
  for (int I = 0; I < 13; ++I) {
    std::string File = "/p/f" + std::to_string(I) + ".cpp";
    Entries.push_back({"/p", File, {"c++", "-c", File}});
    Sizes[File] = I == 7 ? 1200 : 100;
  }
  auto SizeOf = [&](const CompileEntry &E) { return Sizes.at(E.File); };
  std::map<std::string, int> Owners;
  std::vector<uint64_t> Loads;
  for (unsigned K = 1; K <= 3; ++K) {
    uint64_t Load = 0;
    std::vector<CompileEntry> Part = entriesOfShard(Entries, {K, 3}, SizeOf);
    for (const CompileEntry &E : Part) {
      ++Owners[E.File];
      Load += Sizes[E.File];
    }
    Loads.push_back(Load);
    // In database order, and the same on every call.
    EXPECT_TRUE(std::is_sorted(
        Part.begin(), Part.end(),
        [](const CompileEntry &A, const CompileEntry &B) {
          return std::stoi(A.File.substr(4)) < std::stoi(B.File.substr(4));
        }));
    std::vector<CompileEntry> Again = entriesOfShard(Entries, {K, 3}, SizeOf);
    ASSERT_EQ(Again.size(), Part.size());
    for (size_t I = 0; I < Part.size(); ++I)
      EXPECT_EQ(Again[I].File, Part[I].File);
  }
  EXPECT_EQ(Owners.size(), Entries.size());
  for (const auto &[File, Count] : Owners)
    EXPECT_EQ(Count, 1) << File;
  // 2400 bytes in all: the large file alone in one shard, 6 small in others.
  std::sort(Loads.begin(), Loads.end());
  EXPECT_EQ(Loads, (std::vector<uint64_t>{600, 600, 1200}));
}

TEST(Sharding, ShardSpecification) {
  llvm::Expected<Shard> Good = parseShard("2/5");
  ASSERT_TRUE(bool(Good));
  EXPECT_EQ(Good->Index, 2u);
  EXPECT_EQ(Good->Count, 5u);
  for (const char *Bad : {"0/2", "3/2", "1/0", "x/2", "1", "1/2/3", ""}) {
    llvm::Expected<Shard> S = parseShard(Bad);
    EXPECT_FALSE(bool(S)) << Bad;
    if (!S)
      EXPECT_NE(llvm::toString(S.takeError()).find("expected K/N"),
                std::string::npos);
  }
}

TEST(LineFilter, ClangTidysSyntaxAndMeaning) {
  llvm::Expected<LineFilter> Filter = parseLineFilter(
      R"([{"name":"src/a.cpp","lines":[[1,3],[7,7]]},{"name":"b.h"}])");
  ASSERT_TRUE(bool(Filter)) << llvm::toString(Filter.takeError());
  EXPECT_TRUE(passesLineFilter(*Filter, "/repo/src/a.cpp", 2));
  EXPECT_TRUE(passesLineFilter(*Filter, "/repo/src/a.cpp", 7));
  EXPECT_FALSE(passesLineFilter(*Filter, "/repo/src/a.cpp", 5));
  EXPECT_TRUE(passesLineFilter(*Filter, "/repo/include/b.h", 400));
  EXPECT_FALSE(passesLineFilter(*Filter, "/repo/src/c.cpp", 1));
  EXPECT_TRUE(passesLineFilter({}, "/anything.cpp", 1)) << "no filter";

  for (const char *Bad :
       {"", "{}", "[1]", R"([{"lines":[[1,2]]}])", R"([{"name":""}])",
        R"([{"name":"a","lines":[1,2]}])", R"([{"name":"a","lines":[[0,2]]}])",
        R"([{"name":"a","lines":[[3,2]]}])", R"([{"name":"a","lines":{}}])"}) {
    llvm::Expected<LineFilter> Parsed = parseLineFilter(Bad);
    EXPECT_FALSE(bool(Parsed)) << Bad;
    if (!Parsed)
      EXPECT_NE(llvm::toString(Parsed.takeError()).find("--line-filter"),
                std::string::npos);
  }
}

namespace {
nlohmann::json sarifRun(const std::vector<std::string> &RuleIds,
                        const std::vector<std::pair<std::string, int>> &Found,
                        bool Success) {
  nlohmann::json Rules = nlohmann::json::array();
  for (const std::string &Id : RuleIds)
    Rules.push_back({{"id", Id}});
  nlohmann::json Results = nlohmann::json::array();
  for (const auto &[Rule, Line] : Found) {
    size_t Index =
        std::find(RuleIds.begin(), RuleIds.end(), Rule) - RuleIds.begin();
    Results.push_back(
        {{"ruleId", Rule},
         {"ruleIndex", Index},
         {"message", {{"text", "m"}}},
         {"locations",
          {{{"physicalLocation",
             {{"artifactLocation", {{"uri", "src/a.cpp"}}},
              {"region", {{"startLine", Line}}}}}}}},
         {"partialFingerprints",
          {{"primaryLocationLineHash", "h" + std::to_string(Line) + ":1"}}}});
  }
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs",
           {{{"tool", {{"driver", {{"name", "torchlint"}, {"rules", Rules}}}}},
             {"results", Results},
             {"invocations", {{{"executionSuccessful", Success}}}}}}}};
}
} // namespace

TEST(Merge, OneRunEachResultOnceInvocationsKept) {
  fs::path Dir = fs::temp_directory_path() / "torchlint-unit-merge";
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  std::string A = (Dir / "a.sarif").string(), B = (Dir / "b.sarif").string();
  std::ofstream(A) << sarifRun({"torch-x", "torch-y"},
                               {{"torch-x", 1}, {"torch-y", 2}}, true);
  // Shard b found the same torch-y result through a shared header, and its
  // rules are listed in another order.
  std::ofstream(B) << sarifRun({"torch-z", "torch-y"},
                               {{"torch-y", 2}, {"torch-z", 3}}, false);
  llvm::Expected<nlohmann::json> Merged = mergeSarifLogs({A, B});
  ASSERT_TRUE(bool(Merged)) << llvm::toString(Merged.takeError());
  ASSERT_EQ((*Merged)["runs"].size(), 1u);
  const nlohmann::json &Run = (*Merged)["runs"][0];
  ASSERT_EQ(Run["results"].size(), 3u);
  for (const nlohmann::json &Result : Run["results"])
    EXPECT_EQ(
        Run["tool"]["driver"]["rules"][Result["ruleIndex"].get<size_t>()]["id"],
        Result["ruleId"]);
  EXPECT_EQ(Run["tool"]["driver"]["rules"].size(), 3u);
  EXPECT_EQ(Run["invocations"].size(), 2u);
  EXPECT_EQ(Run["invocations"][1]["executionSuccessful"], false);

  std::string NotSarif = (Dir / "c.sarif").string();
  std::ofstream(NotSarif) << "{\"version\": \"2.1.0\", \"runs\": [{}]}";
  llvm::Expected<nlohmann::json> Refused = mergeSarifLogs({A, NotSarif});
  ASSERT_FALSE(bool(Refused));
  EXPECT_EQ(llvm::toString(Refused.takeError()),
            NotSarif + ": not a log that torchlint wrote");
  std::string Broken = (Dir / "d.sarif").string();
  std::ofstream(Broken) << "{";
  llvm::Expected<nlohmann::json> Invalid = mergeSarifLogs({Broken});
  ASSERT_FALSE(bool(Invalid));
  EXPECT_EQ(llvm::toString(Invalid.takeError()), Broken + ": invalid JSON");
  fs::remove_all(Dir);
}

TEST(Sarif, ColumnsInUtf16CodeUnits) {
  // "é" is two bytes and one UTF-16 unit; "😀" is four bytes and two units.
  EXPECT_EQ(utf16Column("abc", 3), 3u);
  EXPECT_EQ(utf16Column("\xC3\xA9x", 3), 2u);
  EXPECT_EQ(utf16Column("\xF0\x9F\x98\x80x", 5), 3u);
  EXPECT_EQ(utf16Column("ab", 4), 4u) << "past the end of the line";
}

TEST(Sarif, FileUris) {
  EXPECT_EQ(fileUri("/a/b c/d#e.cpp"), "file:///a/b%20c/d%23e.cpp");
}

// The test vectors of github/codeql-action (src/fingerprints.test.ts), which
// computes the fingerprints GitHub code scanning matches results by.
TEST(Fingerprint, GitHubTestVectors) {
  using V = std::vector<std::string>;
  EXPECT_EQ(lineHashes(""), V{"c129715d7a2bc9a3:1"});
  EXPECT_EQ(lineHashes(" a\nb\n  \t\tc\n d"),
            (V{"271789c17abda88f:1", "54703d4cd895b18:1", "180aee12dab6264:1",
               "a23a3dc5e078b07b:1"}));
  EXPECT_EQ(
      lineHashes(" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End"),
      (V{"8b7cf3e952e7aeb2:1", "b1ae1287ec4718d9:1", "bff680108adb0fcc:1",
         "c6805c5e1288b612:1", "b86d3392aea1be30:1", "e6ceba753e1a442:1"}));
  V Terminated = {"e9496ae3ebfced30:1", "fb7c023a8b9ccb3f:1",
                  "ce8ba1a563dcdaca:1", "e20e36e16fcb0cc8:1",
                  "b3edc88f2938467e:1", "c8e28b0b4002a3a0:1",
                  "c129715d7a2bc9a3:1"};
  EXPECT_EQ(lineHashes(" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n"),
            Terminated);
  EXPECT_EQ(lineHashes(" hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r"),
            Terminated);
  EXPECT_EQ(
      lineHashes(
          " hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n"),
      Terminated);
  EXPECT_EQ(lineHashes(" hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n"),
            Terminated);
  std::string Lorem;
  for (int I = 0; I < 10; ++I)
    Lorem += "Lorem ipsum dolor sit amet.\n";
  EXPECT_EQ(lineHashes(Lorem),
            (V{"a7f2ff13bc495cf2:1", "a7f2ff13bc495cf2:2", "a7f2ff13bc495cf2:3",
               "a7f2ff13bc495cf2:4", "a7f2ff13bc495cf2:5", "a7f2ff13bc495cf2:6",
               "a7f2ff1481e87703:1", "a9cf91f7bbf1862b:1", "55ec222b86bcae53:1",
               "cc97dc7b1d7d8f7b:1", "c129715d7a2bc9a3:1"}));
  EXPECT_EQ(
      lineHashes("x = 2\nx = 1\nprint(x)\nx = 3\nprint(x)\nx = 4\nprint(x)\n"),
      (V{"e54938cc54b302f1:1", "bb609acbe9138d60:1", "1131fd5871777f34:1",
         "5c482a0f8b35ea28:1", "54517377da7028d2:1", "2c644846cb18d53e:1",
         "f1b89f20de0d133:1", "c129715d7a2bc9a3:1"}));
}

TEST(Sarif, RelativeUris) {
  EXPECT_EQ(relativeUri("/repo/src/a b.cpp", "/repo"), "src/a%20b.cpp");
  EXPECT_EQ(relativeUri("/repo/src/a.cpp", "/repo/"), "src/a.cpp");
  EXPECT_EQ(relativeUri("/repository/a.cpp", "/repo"), "");
  EXPECT_EQ(relativeUri("/elsewhere/a.cpp", "/repo"), "");
}

TEST(RuleDocs, MarkdownToText) {
  EXPECT_EQ(markdownToText("# torch-x\n\n**Level:** error, `code` and "
                           "[a link](docs/a.md)\n```cpp\nint x;\n```\n"),
            "torch-x\n\nLevel: error, code and a link (docs/a.md)\nint x;");
  EXPECT_FALSE(ruleDocMarkdown("torch-device-mismatch").empty());
  EXPECT_TRUE(ruleDocMarkdown("no-such-rule").empty());
}

TEST(RuleDocs, LeadIsThePageBetweenItsLevelAndItsFirstSection) {
  std::string Lead = ruleDocLead("torch-dataloader-no-workers");
  EXPECT_EQ(Lead.rfind("Finds torch::data::make_data_loader(...) calls that "
                       "leave DataLoaderOptions::workers at its default",
                       0),
            0u)
      << Lead;
  EXPECT_EQ(Lead.find("Why it costs"), std::string::npos);
  EXPECT_EQ(Lead.find('\n'), std::string::npos) << "one paragraph";
  for (const RuleEntry &Entry : allRules()) {
    std::string Text = ruleDocLead(Entry.Info.Id);
    EXPECT_FALSE(Text.empty()) << Entry.Info.Id;
    EXPECT_LE(Text.size(), 1024u) << Entry.Info.Id;
    EXPECT_EQ(Text.find("**"), std::string::npos) << Entry.Info.Id;
  }
  std::string Short = ruleDocLead("torch-dataloader-no-workers", 60);
  EXPECT_LE(Short.size(), 60u);
  EXPECT_TRUE(ruleDocLead("no-such-rule").empty());
}

// Which units the summary pass keeps in memory is guessed from the words of
// the sources not parsed yet: a name followed by a parameter list and a body
// is defined there, any other use names it.
TEST(KeptUnits, SourceWordsTellDefinitionsFromOtherUses) {
  SourceWords Words = wordsOfSource(
      "torch::Tensor train(torch::Tensor x, int (*f)(int)) const {\n"
      "  return step(x);\n"
      "}\n"
      "void Net::reset() noexcept override\n{ }\n"
      "void prototype(torch::Device device);\n"
      "auto lambda = [](int y) { return y; };\n"
      "int main() { if (ready()) { train(x, nullptr); } }\n"
      "Loader::Loader(torch::Device d) : Base<int>(d), count{0} {}\n"
      "Sampler::Sampler(int n) : size(n);\n");
  for (const char *Defined : {"train", "reset", "main", "Loader"})
    EXPECT_TRUE(Words.Defined.count(Defined)) << Defined;
  for (const char *Used : {"step", "prototype", "ready", "Net", "Sampler"}) {
    EXPECT_FALSE(Words.Defined.count(Used)) << Used;
    EXPECT_TRUE(Words.Named.count(Used)) << Used;
  }
}

// A unit is kept after its first analysis when a unit still to come calls
// what it defines. Constructors and operators are called by their class's
// name, and a module's forward through its holder ("Net net; net(x);"), from
// a unit in another folder than the definition.
TEST(KeptUnits, ConstructorsOperatorsAndHolderCallsAreCalls) {
  std::string Root = testing::TempDir() + "torchlint-listeners";
  fs::remove_all(Root);
  fs::create_directories(Root + "/utils");
  fs::create_directories(Root + "/app");
  std::ofstream(Root + "/utils/loader.cpp")
      << "Loader::Loader(torch::Device d) : device(d) {}\n"
         "Batch Loader::operator()() { return next(); }\n";
  std::ofstream(Root + "/app/model.cpp")
      << "torch::Tensor NetImpl::forward(torch::Tensor x) { return x; }\n";
  std::ofstream(Root + "/app/main.cpp") << "int main() {\n"
                                           "  Loader loader(torch::kCUDA);\n"
                                           "  Net net;\n"
                                           "  net(loader().data);\n"
                                           "}\n";
  std::ofstream(Root + "/app/other.cpp") << "int unrelated() { return 0; }\n";
  std::vector<CompileEntry> Entries;
  for (const char *File :
       {"utils/loader.cpp", "app/model.cpp", "app/main.cpp", "app/other.cpp"})
    Entries.push_back({Root, Root + "/" + File, {}});
  auto Asking = [](std::set<std::string> Callers) {
    UnitSummary Summary;
    Summary.AskedCallers = std::move(Callers);
    return std::optional<UnitSummary>(Summary);
  };
  FirstRoundListeners Listeners(Entries);
  EXPECT_TRUE(Listeners.mayBeTold(0, Asking({"_ZN6LoaderC1EN3c106DeviceE"})));
  EXPECT_TRUE(Listeners.mayBeTold(0, Asking({"_ZN6LoaderclEv"})));
  EXPECT_TRUE(
      Listeners.mayBeTold(1, Asking({"_ZN7NetImpl7forwardEN2at6TensorE"})));
  EXPECT_FALSE(Listeners.mayBeTold(3, Asking({"_Z9unrelatedv"})));
  // Once the caller has been analyzed, nothing is to come.
  EXPECT_FALSE(Listeners.mayBeTold(2, Asking({})));
  EXPECT_FALSE(Listeners.mayBeTold(0, Asking({"_ZN6LoaderC1EN3c106DeviceE"})));
  fs::remove_all(Root);
}

TEST(PrecompiledPrefix, LeadingAngleIncludesUpToTheLastLibtorchOne) {
  EXPECT_EQ(libtorchIncludePrefix("// A model.\n"
                                  "/* licence\n   text */\n"
                                  "#include <vector>\n"
                                  "#include <torch/torch.h>  // the API\n"
                                  "#  include <ATen/ATen.h>\n"
                                  "#include <iostream>\n"
                                  "int main() {}\n"),
            "#include <torch/torch.h>\n#include <ATen/ATen.h>\n");
  // The standard library's headers may come in any order; another
  // library's before libtorch's stays.
  EXPECT_EQ(libtorchIncludePrefix("#include <cstdlib>\n#include <vector>\n"
                                  "#include <opencv2/core.hpp>\n"
                                  "#include <torch/torch.h>\n"
                                  "#include <iostream>\n"),
            "#include <opencv2/core.hpp>\n#include <torch/torch.h>\n");
  EXPECT_EQ(libtorchIncludePrefix("#include <math.h>\n"
                                  "#include <torch/torch.h>\n"),
            "#include <math.h>\n#include <torch/torch.h>\n");
  // What comes after the first line that is not an angle include is the
  // user's: a macro could change what the headers mean.
  EXPECT_EQ(libtorchIncludePrefix("#define NDEBUG\n#include <torch/torch.h>\n"),
            "");
  EXPECT_EQ(libtorchIncludePrefix("#include \"model.h\"\n"
                                  "#include <torch/torch.h>\n"),
            "");
  EXPECT_EQ(libtorchIncludePrefix("#include <torch/torch.h>\n"
                                  "#include \"model.h\"\n"
                                  "#include <c10/core/Device.h>\n"),
            "#include <torch/torch.h>\n");
  EXPECT_EQ(libtorchIncludePrefix("#include <vector>\n#include <string>\n"),
            "");
  EXPECT_EQ(libtorchIncludePrefix("#include <torch/torch.h> int x;\n"), "");
  EXPECT_EQ(libtorchIncludePrefix("#if 1\n#include <torch/torch.h>\n#endif\n"),
            "");
  EXPECT_EQ(libtorchIncludePrefix("#include <torch/torch.h>\r\n"),
            "#include <torch/torch.h>\n");
  EXPECT_EQ(libtorchIncludePrefix(""), "");
}

TEST(PrecompiledPrefix, AHeaderMayStartWithItsGuard) {
  const char *Guarded = "// The model.\n"
                        "#ifndef MODEL_H\n"
                        "#define MODEL_H\n"
                        "#include <vector>\n"
                        "#include <torch/torch.h>\n"
                        "#include \"layers.h\"\n"
                        "#endif\n";
  EXPECT_EQ(libtorchIncludePrefix(Guarded, /*Header=*/true),
            "#include <torch/torch.h>\n");
  // A main file is not a header: a macro test first is the user's.
  EXPECT_EQ(libtorchIncludePrefix(Guarded), "");
  EXPECT_EQ(libtorchIncludePrefix("#pragma once\n#include <torch/torch.h>\n",
                                  /*Header=*/true),
            "#include <torch/torch.h>\n");
  // Only a guard: #ifndef must be followed by the #define of its name.
  EXPECT_EQ(libtorchIncludePrefix("#ifndef MODEL_H\n#define OTHER\n"
                                  "#include <torch/torch.h>\n",
                                  /*Header=*/true),
            "");
  EXPECT_EQ(
      libtorchIncludePrefix("#ifndef USE_TORCH\n#include <torch/torch.h>\n",
                            /*Header=*/true),
      "");
  EXPECT_EQ(libtorchIncludePrefix("#include <torch/torch.h>\n#pragma once\n",
                                  /*Header=*/true),
            "#include <torch/torch.h>\n");
}

TEST(PrecompiledPrefix, FirstQuotedIncludeIsTheFirstLineOfCode) {
  EXPECT_EQ(firstQuotedInclude("// main\n/* a\n b */\n#include \"model.h\"\n"),
            "model.h");
  EXPECT_EQ(firstQuotedInclude("#  include \"../net/model.h\" // its\n"),
            "../net/model.h");
  EXPECT_EQ(firstQuotedInclude("#include <torch/torch.h>\n#include \"a.h\"\n"),
            "");
  EXPECT_EQ(firstQuotedInclude("#define X\n#include \"a.h\"\n"), "");
  EXPECT_EQ(firstQuotedInclude("#include \"a.h\" int x;\n"), "");
  EXPECT_EQ(firstQuotedInclude(""), "");
}

TEST(PrecompiledPrefix, AConfigurationIsEveryFlagButTheIncludeFolders) {
  auto Describe = [](std::vector<std::string> Arguments,
                     std::string Directory = "/work/a/build") {
    PrefixRequest Request;
    Request.Text = "#include <torch/torch.h>\n";
    Request.Directory = std::move(Directory);
    Request.Arguments = std::move(Arguments);
    describeConfiguration(Request, "torchlint test");
    return Request;
  };
  PrefixRequest First =
      Describe({"/usr/bin/c++", "-I../include", "-std=c++17", "-isystem",
                "/opt/libtorch/include", "-DNDEBUG"});
  EXPECT_EQ(First.Folders,
            (std::vector<SearchFolder>{{"I", "/work/a/include"},
                                       {"isystem", "/opt/libtorch/include"}}));
  // Another sub-project, built in a folder of its own, with folders of its
  // own: the same configuration, told apart by its folders alone.
  PrefixRequest Second =
      Describe({"/usr/bin/c++", "-I", "/work/b/include", "-iquote", "src",
                "-std=c++17", "-isystem", "/opt/libtorch/include", "-DNDEBUG"},
               "/work/b/build");
  EXPECT_EQ(Second.ConfigurationKey, First.ConfigurationKey);
  EXPECT_EQ(Second.Folders.size(), 3u);
  EXPECT_EQ(Second.Folders[1], (SearchFolder{"iquote", "/work/b/build/src"}));
  // A macro, a standard or a target changes what the headers mean.
  for (const std::string &Other :
       {"-DTORCH_API_INCLUDE_EXTENSION_H", "-std=c++20",
        "--target=aarch64-linux-gnu", "-nostdinc++"})
    EXPECT_NE(Describe({"/usr/bin/c++", "-I../include", "-std=c++17",
                        "-isystem", "/opt/libtorch/include", "-DNDEBUG", Other})
                  .ConfigurationKey,
              First.ConfigurationKey)
        << Other;
  // A flag that names a relative path means something else in another
  // directory.
  std::vector<std::string> Relative = {"/usr/bin/c++", "--sysroot=../sysroot",
                                       "-std=c++17"};
  EXPECT_NE(Describe(Relative, "/work/a/build").ConfigurationKey,
            Describe(Relative, "/work/b/build").ConfigurationKey);
  std::vector<std::string> Absolute = {"/usr/bin/c++", "-std=c++17"};
  EXPECT_EQ(Describe(Absolute, "/work/a/build").ConfigurationKey,
            Describe(Absolute, "/work/b/build").ConfigurationKey);
}

TEST(CacheDirectory, KeysChangeWithEveryPiece) {
  std::string Key = CacheDirectory::keyOf({"a", "bc"});
  EXPECT_EQ(Key.size(), 32u);
  EXPECT_EQ(Key, CacheDirectory::keyOf({"a", "bc"}));
  EXPECT_NE(Key, CacheDirectory::keyOf({"ab", "c"}));
  EXPECT_NE(Key, CacheDirectory::keyOf({"a", "bc", ""}));
}

TEST(CacheDirectory, TrimRemovesTemporaryFilesOfWritersLongGone) {
  std::string Root = testing::TempDir() + "torchlint-trim-tmp";
  fs::remove_all(Root);
  CacheDirectory Cache(Root, /*MaxBytes=*/1 << 20);
  std::string Old = Cache.pathFor("pch", "aa01", "-1234.pch.tmp");
  std::string Fresh = Cache.pathFor("pch", "bb02", "-5678.pch.tmp");
  std::ofstream(Old) << "x";
  std::ofstream(Fresh) << "x";
  fs::last_write_time(Old,
                      fs::file_time_type::clock::now() - std::chrono::hours(2));
  Cache.trim();
  EXPECT_FALSE(fs::exists(Old));
  EXPECT_TRUE(fs::exists(Fresh)); // perhaps still being written
  fs::remove_all(Root);
}

TEST(CacheDirectory, TrimRemovesLeastRecentlyUsedEntriesWhole) {
  std::string Root = testing::TempDir() + "torchlint-trim";
  fs::remove_all(Root);
  CacheDirectory Cache(Root, /*MaxBytes=*/2500);
  auto Fill = [&](const std::string &Key, int Seconds) {
    for (const char *Suffix : {".json", ".pch"}) {
      std::string Path = Cache.pathFor("pch", Key, Suffix);
      std::ofstream(Path) << std::string(600, 'x');
      auto When =
          fs::file_time_type::clock::now() - std::chrono::seconds(Seconds);
      fs::last_write_time(Path, When);
    }
  };
  Fill("aa01", 300);
  Fill("bb02", 100);
  Fill("cc03", 200);
  Cache.trim();
  EXPECT_FALSE(fs::exists(Cache.pathFor("pch", "aa01", ".json")));
  EXPECT_FALSE(fs::exists(Cache.pathFor("pch", "aa01", ".pch")));
  EXPECT_TRUE(fs::exists(Cache.pathFor("pch", "bb02", ".pch")));
  EXPECT_TRUE(fs::exists(Cache.pathFor("pch", "cc03", ".pch")));

  std::string Problem;
  std::ofstream(Cache.pathFor("results", "dd04", ".json")) << "[1, 2";
  EXPECT_FALSE(Cache.read(Cache.pathFor("results", "dd04", ".json"), Problem));
  EXPECT_NE(Problem.find("corrupt cache entry"), std::string::npos);
  Problem.clear();
  EXPECT_FALSE(Cache.read(Cache.pathFor("results", "none", ".json"), Problem));
  EXPECT_EQ(Problem, "");
  fs::remove_all(Root);
}

TEST(FileStamps, ChangedContentsAndTimesAreTold) {
  std::string Path = testing::TempDir() + "torchlint-stamp.h";
  std::ofstream(Path) << "int a;\n";
  std::optional<FileStamp> Stamp = stampFile(Path);
  ASSERT_TRUE(Stamp);
  EXPECT_TRUE(unchanged(*Stamp));
  // A new time with the same contents (a checkout) is still unchanged.
  fs::last_write_time(Path, fs::last_write_time(Path) + std::chrono::hours(1));
  EXPECT_TRUE(unchanged(*Stamp));
  std::ofstream(Path) << "int b;\n"; // same size, other contents
  EXPECT_FALSE(unchanged(*Stamp));
  EXPECT_EQ(stampsFromJson(toJson({*Stamp})).front().Digest, Stamp->Digest);
  fs::remove(Path);
  EXPECT_FALSE(unchanged(*Stamp));
}

TEST(FileStamps, AnAbsentFileIsUnchangedUntilItAppears) {
  std::string Path = testing::TempDir() + "torchlint-absent.h";
  fs::remove(Path);
  FileStamp Stamp = absentFile(Path);
  EXPECT_TRUE(unchanged(Stamp));
  EXPECT_TRUE(sameSizeAndTime({Stamp}));
  std::vector<FileStamp> Read = stampsFromJson(toJson({Stamp}));
  ASSERT_EQ(Read.size(), 1u);
  EXPECT_TRUE(Read.front().Absent);
  EXPECT_EQ(Read.front().Path, Path);
  std::ofstream(Path) << "int a;\n";
  EXPECT_FALSE(unchanged(Stamp));
  EXPECT_FALSE(sameSizeAndTime({Stamp}));
  fs::remove(Path);
}

// A batch run looks at each input file once, however many entries list it;
// a file that changes during the run is seen as it first was, until the next
// run looks again.
TEST(FileStamps, ARunSeesEachFileAsItFirstLookedAtIt) {
  std::string Path = testing::TempDir() + "torchlint-seen.h";
  std::string Missing = testing::TempDir() + "torchlint-seen-absent.h";
  fs::remove(Missing);
  std::ofstream(Path) << "int a;\n";
  std::optional<FileStamp> Stamp = stampFile(Path);
  ASSERT_TRUE(Stamp);
  std::vector<FileStamp> Stamps = {*Stamp, absentFile(Missing)};
  FilesAsFirstSeen Run;
  EXPECT_TRUE(Run.unchanged(Stamps));
  std::ofstream(Path) << "int a, b;\n";
  std::ofstream(Missing) << "int c;\n";
  EXPECT_TRUE(Run.unchanged(Stamps));
  FilesAsFirstSeen NextRun;
  EXPECT_FALSE(NextRun.unchanged({Stamps[0]}));
  EXPECT_FALSE(NextRun.unchanged({Stamps[1]}));
  // Only the time moved: the contents decide, as for a single stamp.
  std::ofstream(Path) << "int a;\n";
  fs::last_write_time(Path, fs::last_write_time(Path) + std::chrono::hours(1));
  EXPECT_TRUE(FilesAsFirstSeen().unchanged({Stamps[0]}));
  std::ofstream(Path) << "int b;\n";
  fs::last_write_time(Path, fs::last_write_time(Path) + std::chrono::hours(2));
  EXPECT_FALSE(FilesAsFirstSeen().unchanged({Stamps[0]}));
  fs::remove(Path);
  fs::remove(Missing);
}

// An editor's server keeps one result cache while the user edits: it looks
// at the files again at every lookup. A batch run's looks once.
TEST(ResultCache, AServerLooksAgainAndABatchRunLooksOnce) {
  std::string Root = testing::TempDir() + "torchlint-result-cache";
  fs::remove_all(Root);
  std::string Header = testing::TempDir() + "torchlint-result-input.h";
  std::ofstream(Header) << "int a;\n";
  CacheDirectory Cache(Root, /*MaxBytes=*/1 << 20);
  std::optional<FileStamp> Stamp = stampFile(Header);
  ASSERT_TRUE(Stamp);
  CachedResult Stored;
  Stored.Notices = {"stored"};
  ResultCache Server(Cache);
  ResultCache Batch(Cache, ResultCache::InputChecks::OncePerRun);
  // The header twice, as a unit's files and its precompiled header's
  // overlap: stored once.
  Server.store("k", Stored, {*Stamp, *Stamp});
  std::string Problem;
  std::optional<CachedResult> Read = Server.lookup("k", Problem);
  ASSERT_TRUE(Read);
  EXPECT_EQ(Read->Inputs, std::vector<std::string>{Header});
  EXPECT_EQ(Read->Notices, Stored.Notices);
  ASSERT_TRUE(Batch.lookup("k", Problem));
  std::ofstream(Header) << "int a, b;\n";
  EXPECT_FALSE(Server.lookup("k", Problem));
  EXPECT_TRUE(Batch.lookup("k", Problem));
  EXPECT_FALSE(ResultCache(Cache, ResultCache::InputChecks::OncePerRun)
                   .lookup("k", Problem));
  EXPECT_EQ(Problem, "");
  fs::remove(Header);
  fs::remove_all(Root);
}

// Two matchers, or two instantiations, may report the same finding: the
// context hands each one to the shell once, and passes notices on.
TEST(AnalysisContext, HandsEachFindingToTheShellOnce) {
  struct Recording : FindingSink {
    std::vector<Finding> Findings;
    std::vector<std::string> Notices;
    void consume(Finding F) override { Findings.push_back(std::move(F)); }
    void notice(const std::string &Message) override {
      Notices.push_back(Message);
    }
  } Shell;
  UserCode Code;
  AnalysisContext Context(Code, Shell);
  Finding F;
  F.RuleId = "torch-sync-in-loop";
  F.Where.File = "/p/train.cpp";
  F.Where.Begin = {300, 12, 5};
  F.Where.End = {311, 12, 16};
  F.Message = "'loss.item()' waits for the GPU on every iteration";
  Context.sink().consume(F);
  Context.sink().consume(F);
  Finding Other = F;
  Other.Message = "another message";
  Context.sink().consume(Other);
  Context.sink().notice("the device flow gave up on 'f'");
  EXPECT_EQ(Shell.Findings.size(), 2u);
  EXPECT_EQ(Shell.Notices.size(), 1u);
}

} // namespace

namespace {
RemoteFact remoteFact(api::DeviceKind Kind, bool RunTimeChoice = false) {
  RemoteFact F;
  F.Kind = Kind;
  F.How = Provenance::DeviceLiteral;
  F.RunTimeChoice = RunTimeChoice;
  return F;
}
} // namespace

TEST(Summaries, UnitsAreGivenWhatTheyAskedOfTheNearestUnits) {
  UnitSummary Main, Train, OtherMain, Loss;
  // main.cpp passes the GPU to train(); another program's main passes the
  // CPU to a train() of the same name.
  Main.Passes["_Z5train"] = {{remoteFact(api::DeviceKind::CUDA)}};
  OtherMain.Passes["_Z5train"] = {{remoteFact(api::DeviceKind::CPU)}};
  Train.AskedCallers = {"_Z5train", "_Z7unknown"};
  Train.AskedReturns = {"_Z4loss", "_Z7unknown"};
  Train.Defines = {"_Z5train"};
  // The other program defines its own train() and loss().
  UnitSummary OtherTrain;
  OtherTrain.Defines = {"_Z5train", "_Z4loss"};
  OtherTrain.Returns["_Z4loss"].Facts = {remoteFact(api::DeviceKind::CPU)};
  ReturnSummary Returned;
  Returned.FromParameters = {0};
  Loss.Returns["_Z4loss"] = Returned;
  Loss.Defines = {"_Z4loss"};
  std::vector<const UnitSummary *> All = {&Main, &Train, &OtherMain, &Loss,
                                          &OtherTrain};
  std::vector<std::string> Files = {"/p/a/src/main.cpp", "/p/a/src/train.cpp",
                                    "/p/b/src/main.cpp", "/p/a/src/loss.cpp",
                                    "/p/b/src/train.cpp"};
  ImportedSummaries Given = importsFor(1, All, Files);
  ASSERT_EQ(Given.Callers.count("_Z5train"), 1u);
  ASSERT_EQ(Given.Callers["_Z5train"].size(), 1u);
  EXPECT_EQ(Given.Callers["_Z5train"][0],
            RemoteFacts{remoteFact(api::DeviceKind::CUDA)});
  ASSERT_EQ(Given.Returns.count("_Z4loss"), 1u);
  EXPECT_EQ(Given.Returns["_Z4loss"].FromParameters, std::set<unsigned>{0});
  EXPECT_EQ(Given.Callers.count("_Z7unknown") +
                Given.Returns.count("_Z7unknown"),
            0u);
  // What a unit did not ask for is not given: main asked for nothing.
  EXPECT_TRUE(importsFor(0, All, Files).empty());

  // The other program's train() hears only of its own main.
  OtherTrain.AskedCallers = {"_Z5train"};
  ImportedSummaries Other = importsFor(4, All, Files);
  EXPECT_EQ(Other.Callers["_Z5train"][0],
            RemoteFacts{remoteFact(api::DeviceKind::CPU)});

  // Every caller that resolves to the unit is joined.
  Files[2] = "/p/a/src/test.cpp";
  Given = importsFor(1, All, Files);
  EXPECT_EQ(Given.Callers["_Z5train"][0].size(), 2u);
}

namespace {
/// A program of three units whose summaries depend on what they are told:
/// main passes the GPU to train(), train passes its parameter's device on to
/// loss(), and loss returns its caller's device, which main asks about. A
/// fact takes every round of the pass to reach main.
TranslationUnitResult toyAnalysis(const CompileEntry &Entry,
                                  const ImportedSummaries &Imports) {
  TranslationUnitResult R;
  R.File = Entry.File;
  R.Warnings = {"given " + toJson(Imports).dump()};
  UnitSummary S;
  auto CallersOf = [&](const std::string &Function) {
    auto It = Imports.Callers.find(Function);
    return It == Imports.Callers.end() ? std::optional<RemoteFacts>()
                                       : It->second[0];
  };
  if (Entry.File == "/p/main.cpp") {
    S.Passes["train"] = {{remoteFact(api::DeviceKind::CUDA)}};
    S.AskedReturns = {"loss"};
  } else if (Entry.File == "/p/train.cpp") {
    S.Defines = {"train"};
    S.AskedCallers = {"train"};
    S.Passes["loss"] = {CallersOf("train").value_or(RemoteFacts{
        remoteFact(api::DeviceKind::CUDA, /*RunTimeChoice=*/true)})};
  } else {
    S.Defines = {"loss"};
    S.AskedCallers = {"loss"};
    S.Returns["loss"].Facts = CallersOf("loss").value_or(RemoteFacts{});
  }
  R.Summary = S;
  return R;
}
} // namespace

// The language server analyzes one unit and reads what the CLI's summary
// pass left in the cache for the others, round by round: the same rounds,
// so the same result, as long as every unit's results are there.
TEST(ProgramRounds, OneUnitWithTheOthersFromTheCacheIsAnalyzedAsByTheCli) {
  std::vector<CompileEntry> Entries = {{"/p", "/p/main.cpp", {}},
                                       {"/p", "/p/train.cpp", {}},
                                       {"/p", "/p/loss.cpp", {}}};
  std::map<std::pair<std::string, std::string>, TranslationUnitResult> Stored;
  std::vector<std::string> Analyzed;
  ProgramUnitAnalyzer Analyze = [&](const CompileEntry &Entry,
                                    const ImportedSummaries &Imports,
                                    std::unique_ptr<ParsedUnit> *) {
    Analyzed.push_back(Entry.File);
    TranslationUnitResult R = toyAnalysis(Entry, Imports);
    Stored[{Entry.File, toJson(Imports).dump()}] = R;
    return R;
  };
  CachedUnitResult Cached = [&](const CompileEntry &Entry,
                                const ImportedSummaries &Imports)
      -> std::optional<TranslationUnitResult> {
    auto It = Stored.find({Entry.File, toJson(Imports).dump()});
    if (It == Stored.end())
      return std::nullopt;
    return It->second;
  };
  ProgramRun Cli = analyzeProgram(Entries, Analyze, 1,
                                  [](size_t, size_t, const std::string &) {});
  ASSERT_EQ(Cli.Rounds, 3u);
  ASSERT_EQ(Cli.Results[0].Summary->AskedReturns.size(), 1u);
  for (size_t Self = 0; Self < Entries.size(); ++Self) {
    Analyzed.clear();
    UnitInProgram Lsp = analyzeUnitInProgram(Entries, Self, Analyze, Cached);
    EXPECT_EQ(Lsp.Unknown, 0u);
    EXPECT_EQ(Lsp.Result.Warnings, Cli.Results[Self].Warnings) << Self;
    EXPECT_EQ(toJson(*Lsp.Result.Summary), toJson(*Cli.Results[Self].Summary));
    for (const std::string &File : Analyzed)
      EXPECT_EQ(File, Entries[Self].File) << "another unit was analyzed";
  }
  // main was told, in the last round, that loss() returns a device that
  // is the GPU when train()'s caller passes one.
  std::string MainLast = Cli.Results[0].Warnings[0];
  EXPECT_NE(MainLast.find("\"runTimeChoice\":true"), std::string::npos)
      << MainLast;

  // loss.cpp's later rounds are not in the cache (as when main, edited,
  // tells the others something new: their later rounds were made with the
  // old): main hears what loss told in the rounds it has a result for, its
  // first, on its own (it returns nothing known).
  const std::string OnItsOwn = toJson(ImportedSummaries{}).dump();
  for (auto It = Stored.begin(); It != Stored.end();)
    if (It->first.first == "/p/loss.cpp" && It->first.second != OnItsOwn)
      It = Stored.erase(It);
    else
      ++It;
  UnitInProgram Stale = analyzeUnitInProgram(Entries, 0, Analyze, Cached);
  EXPECT_EQ(Stale.Unknown, 0u);
  EXPECT_EQ(Stale.Summaries[2]->Returns.at("loss").Facts, RemoteFacts{});
  EXPECT_EQ(Stale.Result.Warnings[0].find("\"runTimeChoice\":true"),
            std::string::npos)
      << Stale.Result.Warnings[0];

  // No result of loss.cpp at all: main is analyzed on its own.
  for (auto It = Stored.begin(); It != Stored.end();)
    if (It->first.first == "/p/loss.cpp")
      It = Stored.erase(It);
    else
      ++It;
  Analyzed.clear();
  UnitInProgram Alone = analyzeUnitInProgram(Entries, 0, Analyze, Cached);
  EXPECT_EQ(Alone.Unknown, 1u);
  EXPECT_EQ(Alone.Result.Warnings,
            std::vector<std::string>{"given " + OnItsOwn});
  EXPECT_EQ(Analyzed, std::vector<std::string>{"/p/main.cpp"});
}

TEST(Summaries, SurviveJson) {
  UnitSummary S;
  RemoteFact F = remoteFact(api::DeviceKind::CUDA, /*RunTimeChoice=*/true);
  F.Index = 1;
  F.Where = Span{"/p/main.cpp", {10, 2, 3}, {20, 2, 13}};
  S.Passes["_Z1fN3c106DeviceE"] = {{F}, {}};
  S.Returns["_Z1gv"].Facts = {remoteFact(api::DeviceKind::CPU)};
  S.Returns["_Z1gv"].FromParameters = {1, 2};
  S.Returns["_Z4nextRN2at6TensorE"].Fills[0] = {
      {remoteFact(api::DeviceKind::CPU)}, /*KeepsGiven=*/true};
  S.Defines = {"_Z1gv"};
  S.Overrides["_ZN4Base1fEv"] = {"_ZN7Derived1fEv"};
  S.AskedCallers = {"_Z1hv"};
  S.AskedReturns = {"_Z1iv"};
  S.Work = {{"_Z1gv", StepWork::step()},
            {"_Z1jv", StepWork::inLoops(/*Trains=*/true)},
            {"_Z1kv", {true, true, true, false}}};
  S.CallsOut["_Z1gv"] = {{"_Z1hv", true, UnitSummary::OutCall::Grad::Off},
                         {"_Z1hv", false, UnitSummary::OutCall::Grad::Inherited,
                          /*AutocastInherited=*/true}};
  S.CallsPerStep = {"_Z1hv"};
  S.CalledUnderAutocast["_Z1hv"] = {"/p/a.cpp", {10, 2, 3}, {40, 2, 33}};
  S.AskedAutocast = {"_Z1gv"};
  S.AskedWork = {"_Z1iv"};
  S.AskedPerStep = {"_Z1gv"};
  S.AskedGrad = {"_Z1jv"};
  S.Trains = true;
  S.AskedTraining = true;
  S.UsesCuda = true;
  S.AskedCuda = true;
  S.DecidesCudnnBenchmark = true;
  S.AskedCudnnBenchmark = true;
  UnitSummary Back = unitSummaryFromJson(toJson(S));
  EXPECT_EQ(Back.Passes, S.Passes);
  EXPECT_EQ(Back.Returns, S.Returns);
  EXPECT_EQ(Back.Defines, S.Defines);
  EXPECT_EQ(Back.Overrides, S.Overrides);
  EXPECT_EQ(Back.AskedCallers, S.AskedCallers);
  EXPECT_EQ(Back.AskedReturns, S.AskedReturns);
  EXPECT_EQ(Back.Work, S.Work);
  EXPECT_EQ(Back.CallsOut, S.CallsOut);
  EXPECT_EQ(Back.CallsPerStep, S.CallsPerStep);
  EXPECT_EQ(Back.AskedWork, S.AskedWork);
  EXPECT_EQ(Back.AskedPerStep, S.AskedPerStep);
  EXPECT_EQ(Back.AskedGrad, S.AskedGrad);
  EXPECT_TRUE(sameSpans(Back.CalledUnderAutocast, S.CalledUnderAutocast));
  EXPECT_EQ(Back.AskedAutocast, S.AskedAutocast);
  EXPECT_EQ(Back.Trains, S.Trains);
  EXPECT_EQ(Back.AskedTraining, S.AskedTraining);
  EXPECT_EQ(Back.UsesCuda, S.UsesCuda);
  EXPECT_EQ(Back.AskedCuda, S.AskedCuda);
  EXPECT_EQ(Back.DecidesCudnnBenchmark, S.DecidesCudnnBenchmark);
  EXPECT_EQ(Back.AskedCudnnBenchmark, S.AskedCudnnBenchmark);
  ImportedSummaries I;
  I.Callers = S.Passes;
  I.Returns = S.Returns;
  I.Work = S.Work;
  I.CalledPerStep = {"_Z1gv"};
  I.GradOffInCallers = {"_Z1jv"};
  I.AutocastOnInCallers = S.CalledUnderAutocast;
  I.OthersTrain = false;
  I.OthersUseCuda = true;
  I.OthersDecideCudnnBenchmark = false;
  EXPECT_EQ(importedSummariesFromJson(toJson(I)), I);
  nlohmann::json Bad = toJson(S);
  Bad["passes"]["_Z1fN3c106DeviceE"][0][0]["kind"] = 99;
  EXPECT_THROW(unitSummaryFromJson(Bad), nlohmann::json::exception);
  Bad = toJson(S);
  Bad["work"]["_Z1gv"] = "sometimes";
  EXPECT_THROW(unitSummaryFromJson(Bad), nlohmann::json::exception);
}

// Autocast is process state: a trainer's step (trainer.cpp) turns it on and
// calls the loss computer (loss.cpp), which calls backward() through
// reduce() (reduce.cpp); reduce() has no caller in loss.cpp, so autocast
// there is what compute()'s callers left on. A caller that turned it off
// first leaves other functions alone, and an unasked unit is told nothing.
TEST(Summaries, AutocastOnInCallersCrossUnits) {
  using Grad = UnitSummary::OutCall::Grad;
  UnitSummary Trainer, Loss, Reduce;
  Span TurnedOn{"/p/trainer.cpp", {120, 9, 5}, {170, 9, 55}};
  Trainer.CallsOut["step"] = {{"compute", false, Grad::On},
                              {"evaluate", false, Grad::On}};
  Trainer.CalledUnderAutocast["compute"] = TurnedOn;
  Loss.Defines = {"compute", "evaluate"};
  Loss.CallsOut["compute"] = {
      {"reduce", false, Grad::Inherited, /*AutocastInherited=*/true}};
  Loss.CallsOut["evaluate"] = {
      {"report", false, Grad::Inherited, /*AutocastInherited=*/true}};
  Loss.AskedAutocast = {"compute", "evaluate"};
  Reduce.Defines = {"reduce", "report"};
  Reduce.AskedAutocast = {"reduce", "report"};
  std::vector<const UnitSummary *> All = {&Trainer, &Loss, &Reduce};
  std::vector<std::string> Files = {"/p/trainer.cpp", "/p/loss.cpp",
                                    "/p/reduce.cpp"};
  ImportedSummaries ToLoss = importsFor(1, All, Files);
  ASSERT_EQ(ToLoss.AutocastOnInCallers.size(), 1u);
  EXPECT_EQ(ToLoss.AutocastOnInCallers.begin()->first, "compute");
  EXPECT_EQ(ToLoss.AutocastOnInCallers.begin()->second.Begin.Offset, 120u);
  ImportedSummaries ToReduce = importsFor(2, All, Files);
  ASSERT_EQ(ToReduce.AutocastOnInCallers.count("reduce"), 1u);
  EXPECT_EQ(ToReduce.AutocastOnInCallers["reduce"].File, "/p/trainer.cpp");
  EXPECT_EQ(ToReduce.AutocastOnInCallers.count("report"), 0u);
  // An edge whose caller decided autocast itself (off) passes nothing on.
  Loss.CallsOut["compute"] = {{"reduce", false, Grad::Inherited, false}};
  EXPECT_TRUE(importsFor(2, All, Files).AutocastOnInCallers.empty());
  EXPECT_TRUE(importsFor(0, All, Files).AutocastOnInCallers.empty());
}

// Step work and per-step calls follow the units' calls into each other:
// main's loop calls detect() (detector.cpp), which runs the model through
// infer() (model.cpp) and calls boxes() (post.cpp), so boxes() runs on every
// step though no unit that calls it has a loop; recording is off in every
// call of boxes() (detect() holds a guard), and nothing of the program
// trains. A unit of another program is told nothing of these.
TEST(Summaries, StepFactsCrossAnyNumberOfUnits) {
  using Grad = UnitSummary::OutCall::Grad;
  UnitSummary Main, Detector, Model, Post, Trainer;
  Main.CallsOut["main"] = {{"detect", true, Grad::On}};
  Main.AskedWork = {"detect"};
  Main.CallsPerStep = {"detect"}; // once it knows detect() is a step
  Detector.Defines = {"detect"};
  Detector.CallsOut["detect"] = {{"infer", false, Grad::Off},
                                 {"boxes", false, Grad::Off}};
  Model.Defines = {"infer"};
  Model.Work["infer"] = StepWork::step();
  Post.Defines = {"boxes"};
  Post.AskedPerStep = {"boxes"};
  Post.AskedGrad = {"boxes"};
  Post.AskedTraining = true;
  Trainer.Trains = true; // another program, in another folder
  Trainer.CallsOut["train"] = {{"step", true, Grad::On}};
  std::vector<const UnitSummary *> All = {&Main, &Detector, &Model, &Post,
                                          &Trainer};
  std::vector<std::string> Files = {"/p/app/main.cpp", "/p/app/detector.cpp",
                                    "/p/app/model.cpp", "/p/app/post.cpp",
                                    "/p/tools/train.cpp"};
  ImportedSummaries ToMain = importsFor(0, All, Files);
  ASSERT_EQ(ToMain.Work.count("detect"), 1u);
  EXPECT_EQ(ToMain.Work["detect"], StepWork::step());
  ImportedSummaries ToPost = importsFor(3, All, Files);
  EXPECT_EQ(ToPost.CalledPerStep, std::set<std::string>{"boxes"});
  EXPECT_EQ(ToPost.GradOffInCallers, std::set<std::string>{"boxes"});
  ASSERT_TRUE(ToPost.OthersTrain.has_value());
  EXPECT_FALSE(*ToPost.OthersTrain);

  // A call that records, through the caller's own callers, is not off; and
  // a unit connected to the program that trains makes it train.
  Detector.CallsOut["detect"] = {{"boxes", false, Grad::Inherited}};
  Trainer.CallsOut["train"] = {{"detect", true, Grad::On}};
  Files[4] = "/p/app/train.cpp";
  ToPost = importsFor(3, All, Files);
  EXPECT_TRUE(ToPost.GradOffInCallers.empty());
  EXPECT_TRUE(ToPost.OthersTrain.value_or(false));
  // Not asked, not told.
  EXPECT_FALSE(importsFor(2, All, Files).OthersTrain.has_value());

  // CUDA asked for in one unit is asked for by the program its calls
  // connect it to, and by no other.
  Main.UsesCuda = true;
  Post.AskedCuda = true;
  Files[4] = "/p/tools/train.cpp";
  Trainer.CallsOut["train"] = {{"step", true, Grad::On}};
  Trainer.AskedCuda = true;
  EXPECT_TRUE(importsFor(3, All, Files).OthersUseCuda.value_or(false));
  ASSERT_TRUE(importsFor(4, All, Files).OthersUseCuda.has_value());
  EXPECT_FALSE(*importsFor(4, All, Files).OthersUseCuda);
  EXPECT_FALSE(importsFor(1, All, Files).OthersUseCuda.has_value());

  // So is cuDNN's benchmark mode, set in one unit for the whole program.
  Main.DecidesCudnnBenchmark = true;
  Detector.AskedCudnnBenchmark = true;
  Trainer.AskedCudnnBenchmark = true;
  EXPECT_TRUE(
      importsFor(1, All, Files).OthersDecideCudnnBenchmark.value_or(false));
  EXPECT_FALSE(
      importsFor(4, All, Files).OthersDecideCudnnBenchmark.value_or(true));
}

// cuDNN's benchmark mode, set by one executable's main: it holds for the
// units that main reaches, not for another executable built on the same
// units. A unit both reach is told it is decided only if both decide.
TEST(Summaries, CudnnBenchmarkHoldsForTheMainThatSetsIt) {
  using Grad = UnitSummary::OutCall::Grad;
  UnitSummary Train, Infer, Model, Trainer;
  Train.Defines = {"main"};
  Train.CallsOut["main"] = {{"fit", false, Grad::On}};
  Train.DecidesCudnnBenchmark = true;
  Trainer.Defines = {"fit"};
  Trainer.CallsOut["fit"] = {{"build", false, Grad::On}};
  Trainer.AskedCudnnBenchmark = true;
  Infer.Defines = {"main"};
  Infer.CallsOut["main"] = {{"build", false, Grad::Off}};
  Infer.AskedCudnnBenchmark = true;
  Model.Defines = {"build"};
  Model.AskedCudnnBenchmark = true;
  std::vector<const UnitSummary *> All = {&Train, &Infer, &Model, &Trainer};
  std::vector<std::string> Files = {"/p/train.cpp", "/p/infer.cpp",
                                    "/p/model.cpp", "/p/trainer.cpp"};
  EXPECT_TRUE(
      importsFor(3, All, Files).OthersDecideCudnnBenchmark.value_or(false));
  EXPECT_FALSE(
      importsFor(1, All, Files).OthersDecideCudnnBenchmark.value_or(true));
  EXPECT_FALSE(
      importsFor(2, All, Files).OthersDecideCudnnBenchmark.value_or(true));
  Infer.DecidesCudnnBenchmark = true;
  EXPECT_TRUE(
      importsFor(2, All, Files).OthersDecideCudnnBenchmark.value_or(false));
}

// Training in the loops of a function called outside a loop, and a forward
// pass of its own: a call of it is a round of training steps (a PPO update),
// which the caller's loop learns across units to tell from one step.
TEST(Summaries, StepWorkTellsTrainingRoundsAcrossUnits) {
  using Grad = UnitSummary::OutCall::Grad;
  UnitSummary Main, Round, Rollout, Learner;
  Main.AskedWork = {"round"};
  Main.CallsOut["main"] = {{"round", true, Grad::On}};
  Round.Defines = {"round"};
  Round.CallsOut["round"] = {{"bootstrap", false, Grad::Off},
                             {"minibatch_step", true, Grad::On}};
  Rollout.Defines = {"bootstrap"};
  Rollout.Work["bootstrap"] = StepWork::step();
  Learner.Defines = {"minibatch_step"};
  Learner.Work["minibatch_step"] = StepWork::step(/*Trains=*/true);
  std::vector<const UnitSummary *> All = {&Main, &Round, &Rollout, &Learner};
  std::vector<std::string> Files = {"/p/main.cpp", "/p/round.cpp",
                                    "/p/rollout.cpp", "/p/learner.cpp"};
  ImportedSummaries ToMain = importsFor(0, All, Files);
  ASSERT_EQ(ToMain.Work.count("round"), 1u);
  StepWork Expected{/*Runs=*/true, /*Trains=*/false, /*RunsInLoops=*/true,
                    /*TrainsInLoops=*/true};
  EXPECT_EQ(ToMain.Work["round"], Expected);
}

// A call through a base class's pure virtual method (a sampler, a
// criterion chosen at run time) runs whichever override the object has:
// what it returns is what any override returns, it does the work of any,
// and each override is called as the base is: with the caller's arguments,
// on every step. A unit that defines only the base learns nothing of a
// function that overrides nothing.
TEST(Summaries, VirtualCallsRunEveryOverride) {
  using Grad = UnitSummary::OutCall::Grad;
  UnitSummary Trainer, Diffusion, Flow;
  RemoteFact Gpu = remoteFact(api::DeviceKind::CUDA);
  Trainer.AskedReturns = {"Base::sample", "Base::name"};
  Trainer.AskedWork = {"Base::sample"};
  Trainer.Passes["Base::sample"] = {{Gpu}};
  Trainer.CallsPerStep = {"Base::sample"};
  Trainer.CallsOut["train"] = {{"Base::sample", true, Grad::On}};
  Diffusion.Defines = {"Diffusion::sample"};
  Diffusion.Overrides["Base::sample"] = {"Diffusion::sample"};
  Diffusion.Returns["Diffusion::sample"].FromParameters = {0};
  Diffusion.Work["Diffusion::sample"] = StepWork::step();
  Diffusion.AskedCallers = {"Diffusion::sample"};
  Diffusion.AskedPerStep = {"Diffusion::sample"};
  Flow.Defines = {"Flow::sample", "Flow::name"};
  Flow.Overrides["Base::sample"] = {"Flow::sample"};
  Flow.Returns["Flow::sample"].Facts = {remoteFact(api::DeviceKind::CPU)};
  Flow.Returns["Flow::name"].Facts = {remoteFact(api::DeviceKind::CPU)};
  std::vector<const UnitSummary *> All = {&Trainer, &Diffusion, &Flow};
  std::vector<std::string> Files = {"/p/trainer.cpp", "/p/diffusion.cpp",
                                    "/p/flow.cpp"};
  ImportedSummaries ToTrainer = importsFor(0, All, Files);
  ASSERT_EQ(ToTrainer.Returns.count("Base::sample"), 1u);
  EXPECT_EQ(ToTrainer.Returns["Base::sample"].FromParameters,
            std::set<unsigned>{0});
  EXPECT_EQ(ToTrainer.Returns["Base::sample"].Facts,
            RemoteFacts{remoteFact(api::DeviceKind::CPU)});
  EXPECT_EQ(ToTrainer.Returns.count("Base::name"), 0u);
  EXPECT_EQ(ToTrainer.Work["Base::sample"], StepWork::step());
  ImportedSummaries ToDiffusion = importsFor(1, All, Files);
  ASSERT_EQ(ToDiffusion.Callers.count("Diffusion::sample"), 1u);
  EXPECT_EQ(ToDiffusion.Callers["Diffusion::sample"],
            std::vector<RemoteFacts>{{Gpu}});
  EXPECT_EQ(ToDiffusion.CalledPerStep,
            std::set<std::string>{"Diffusion::sample"});
}

} // namespace torchlint
