//===--- AccelerationTest.cpp - Faster, and not one finding different -----===//
//
// The result cache and the precompiled libtorch prefix must never change what
// torchlint says. The whole test-input suite is analyzed cold (the cache
// filling, the prefix precompiled) and warm (every unit read back), and a
// sample of it with both off: the JSON and SARIF logs must be byte for byte
// the same. A cache whose entry
// or precompiled header was damaged gives the same findings and a warning; a
// warm run after one file was edited parses that file only.
//
//===----------------------------------------------------------------------===//

#include "TestInputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {
namespace {

/// Two logs of megabytes, compared without gtest's edit-distance diff (which
/// takes memory quadratic in their lengths): on a difference, the first
/// line that differs, with its number.
::testing::AssertionResult sameText(const std::string &Actual,
                                    const std::string &Expected) {
  if (Actual == Expected)
    return ::testing::AssertionSuccess();
  std::istringstream A(Actual), E(Expected);
  std::string LineA, LineE;
  for (unsigned Line = 1;; ++Line) {
    bool MoreA = bool(std::getline(A, LineA));
    bool MoreE = bool(std::getline(E, LineE));
    if (!MoreA || !MoreE || LineA != LineE)
      return ::testing::AssertionFailure()
             << "the texts differ first at line " << Line
             << ":\n  got:      " << (MoreA ? LineA : "(end)")
             << "\n  expected: " << (MoreE ? LineE : "(end)") << "\n("
             << Actual.size() << " bytes against " << Expected.size() << ")";
  }
}

/// A plain parse costs about three accelerated ones: the comparison without
/// acceleration runs on a sample of each generation's programs that starts
/// with each kind of libtorch prefix (torch/torch.h alone, ATen's autocast
/// header first, C++20, a project header that includes libtorch first), with
/// fix-its and without.
std::vector<std::string> plainSample(const Generation &G) {
  if (G.Major >= 2)
    return {"autocast_leak_unified", "detector_project", "device_mismatch_flow",
            "modern_cxx20", "pageable_copy"};
  return {"autocast_leak", "dataloader_no_workers", "device_mismatch_flow",
          "loss_in_another_unit", "sync_in_loop"};
}

TEST(Acceleration, TestInputsGiveByteIdenticalLogsWithAndWithoutIt) {
  for (const Generation &G : generations()) {
    const Analysis &Cold = originals(G);
    ASSERT_FALSE(Cold.Output.is_discarded()) << Cold.Run.Stderr;
    EXPECT_FALSE(filesWithExtension(cacheFolder(G), ".pch").empty())
        << "the cold run against " << G.Name
        << " precompiled no libtorch prefix";

    Analysis Warm = analyzeTestInputs(G, cacheDirectory(G));
    EXPECT_TRUE(sameText(Warm.Run.Stdout, Cold.Run.Stdout))
        << "JSON differs between a cold and a warm run against " << G.Name;
    EXPECT_TRUE(sameText(readFile(Warm.Sarif), readFile(Cold.Sarif)))
        << "SARIF differs between a cold and a warm run against " << G.Name;

    std::vector<std::string> Names = plainSample(G);
    std::string Directory = temporaryDirectory();
    for (const std::string &Name : Names)
      copyProgram(Name, Directory, /*Golden=*/false);
    std::string Database = databaseFor(G, Names, Directory);
    auto Run = [&](const std::string &Acceleration) {
      std::string Sarif = temporaryDirectory() + "/sample.sarif";
      Analysis A = analyze({"--format=json", "-j", "2", "--quiet", Acceleration,
                            "--export-sarif=" + Sarif, Database});
      A.Sarif = Sarif;
      return A;
    };
    // G's cache holds the precompiled prefixes already; the sample's own
    // paths are new to it, so every unit is analyzed.
    Analysis Accelerated = Run(cacheDirectory(G));
    Analysis Plain = Run("--no-cache");
    ASSERT_FALSE(Accelerated.Output.is_discarded()) << Accelerated.Run.Stderr;
    EXPECT_FALSE(Accelerated.Output["findings"].empty());
    EXPECT_EQ(Plain.Run.ExitCode, Accelerated.Run.ExitCode);
    EXPECT_TRUE(sameText(Plain.Run.Stdout, Accelerated.Run.Stdout))
        << "JSON differs with and without acceleration against " << G.Name;
    EXPECT_TRUE(sameText(readFile(Plain.Sarif), readFile(Accelerated.Sarif)))
        << "SARIF differs with and without acceleration against " << G.Name;
    // Units that start with their project's header were given a prefix too.
    std::map<std::string, std::set<std::string>> Read =
        headersReadByUnit(cacheFolder(G));
    for (const std::string &Name : Names)
      if (isMultiUnit(Name))
        for (const std::string &Unit : programUnits(Name))
          EXPECT_FALSE(Read[copyPath(Unit, Directory)].empty())
              << copyPath(Unit, Directory) << " was parsed without a prefix";
  }
}

/// Three test-input programs copied into a directory of their own, with a
/// cache of their own.
struct SmallProject {
  SmallProject() {
    const Generation &G = generations().front();
    Names = {"device_mismatch_training", "pageable_copy", "sync_in_loop"};
    Directory = temporaryDirectory();
    for (const std::string &Name : Names)
      fs::copy_file(programPath(Name), Directory + "/" + Name + ".cpp");
    Database = databaseFor(G, Names, Directory);
    Cache = temporaryDirectory();
  }
  // One worker: three units are worth a precompiled prefix to it.
  Analysis analyzeIt() const {
    return analyze(
        {"--format=json", "-j", "1", "--cache-dir=" + Cache, Database});
  }
  std::vector<std::string> Names;
  std::string Directory, Database, Cache;
};

json findingsAndFailures(const Analysis &A) {
  return {A.Output["findings"], A.Output["failures"]};
}

std::string warningsOf(const Analysis &A) {
  return A.Output["warnings"].dump();
}

TEST(Acceleration, WarmRunParsesOnlyTheEditedFile) {
  SmallProject P;
  Analysis Cold = P.analyzeIt();
  ASSERT_FALSE(Cold.Output.is_discarded()) << Cold.Run.Stderr;
  EXPECT_EQ(Cold.Run.Stderr.find("unchanged since an earlier run"),
            std::string::npos)
      << Cold.Run.Stderr;

  Analysis Warm = P.analyzeIt();
  EXPECT_NE(Warm.Run.Stderr.find("3 of 3 translation units unchanged"),
            std::string::npos)
      << Warm.Run.Stderr;
  EXPECT_TRUE(sameText(Warm.Run.Stdout, Cold.Run.Stdout));

  {
    std::ofstream Edit(P.Directory + "/pageable_copy.cpp", std::ios::app);
    Edit << "\n// edited after the first run\n";
  }
  Analysis Edited = P.analyzeIt();
  EXPECT_NE(Edited.Run.Stderr.find("2 of 3 translation units unchanged"),
            std::string::npos)
      << Edited.Run.Stderr;
  EXPECT_TRUE(sameText(Edited.Run.Stdout, Cold.Run.Stdout))
      << "a comment appended at the end moved no finding";
}

// Sub-projects give their units their own -I folders. A folder that holds
// none of the headers the libtorch prefix looks up cannot change what it
// means, so such units share one precompiled header, with the findings of a
// plain parse. A folder that holds one must not share it: here the project
// puts its own c10/macros/cmake_macros.h, which libtorch includes deep
// inside, in front of libtorch's; whichever unit builds the header first, a
// unit of the other kind given it would fail to compile.
TEST(Acceleration, UnitsWhoseFoldersDifferOnlyInProjectFoldersShareAPrefix) {
  const Generation &G = generations().front();
  const std::string Program = "sync_in_loop";
  std::string Directory = temporaryDirectory();
  json Template =
      json::parse(readFile(databaseFor(G, {Program}, temporaryDirectory())))[0];
  // The command names the file as databaseFor's copy would be.
  std::string Original = Template["file"];
  std::string Command = Template["command"];
  json Database = json::array();
  for (const std::string &Project : {"first", "second", "shadowing"}) {
    std::string Root = Directory + "/" + Project;
    std::string Folder = Root + "/include";
    fs::create_directories(Folder);
    writeFile(Folder + "/project.h", "#pragma once\ninline int " + Project +
                                         "Value() { return 1; }\n");
    std::string Text =
        readFile(programPath(Program)) + "\n#include \"project.h\"\n";
    if (Project == "shadowing") {
      fs::create_directories(Folder + "/c10/macros");
      writeFile(Folder + "/c10/macros/cmake_macros.h",
                "#pragma once\n#define TORCHLINT_SHADOW_READ 1\n"
                "#include_next <c10/macros/cmake_macros.h>\n");
      Text += "#ifndef TORCHLINT_SHADOW_READ\n#error the project's "
              "cmake_macros.h was not read\n#endif\n";
    } else {
      Text += "#ifdef TORCHLINT_SHADOW_READ\n#error another project's "
              "cmake_macros.h was read\n#endif\n";
    }
    std::string File = Root + "/" + Program + ".cpp";
    writeFile(File, Text);
    std::string Own = Command;
    Own.replace(Own.find(Original), Original.size(), File);
    Own.insert(Own.find(' '), " -I" + Folder);
    // Each sub-project is built in a folder of its own.
    fs::create_directories(Root + "/build");
    Database.push_back(
        {{"directory", Root + "/build"}, {"file", File}, {"command", Own}});
  }
  writeFile(Directory + "/compile_commands.json", Database.dump(1));
  std::string Cache = temporaryDirectory();
  auto AnalyzeIt = [&](const std::string &Acceleration) {
    return analyze({"--format=json", "-j", "1", "--no-summaries", Acceleration,
                    Directory + "/compile_commands.json"});
  };

  Analysis Accelerated = AnalyzeIt("--cache-dir=" + Cache);
  Analysis Plain = AnalyzeIt("--no-cache");
  ASSERT_FALSE(Plain.Output.is_discarded()) << Plain.Run.Stderr;
  EXPECT_TRUE(Plain.Output["failures"].empty()) << Plain.Run.Stdout;
  EXPECT_FALSE(Plain.Output["findings"].empty());
  EXPECT_TRUE(sameText(Accelerated.Run.Stdout, Plain.Run.Stdout));

  std::map<std::string, std::set<std::string>> Read = headersReadByUnit(Cache);
  auto ReadBy = [&](const std::string &Project) {
    return Read[Directory + "/" + Project + "/" + Program + ".cpp"];
  };
  ASSERT_EQ(ReadBy("first").size(), 1u) << "no precompiled prefix was used";
  EXPECT_EQ(ReadBy("second"), ReadBy("first"))
      << "-I folders of the project's own kept the units from sharing";
  EXPECT_EQ(ReadBy("shadowing").count(*ReadBy("first").begin()), 0u)
      << "a unit whose folder shadows a libtorch header was given the "
         "header built without it";
}

// The summary pass: a unit's cached result is keyed on the summaries it was
// given. An edit that changes what losses.cpp tells (the weights it returns
// are now pinned) re-analyzes losses.cpp and main.cpp, which calls it, not
// evaluate.cpp; an edit that changes nothing it tells re-analyzes it alone.
TEST(Acceleration, WarmRunReanalyzesTheUnitsWhoseSummariesChanged) {
  const Generation &G = generations().front();
  const std::string Program = "loss_in_another_unit";
  std::string Directory = temporaryDirectory();
  copyProgram(Program, Directory, /*Golden=*/false);
  std::string Database = databaseFor(G, {Program}, Directory);
  // G's cache: its precompiled prefix is reused, and no result in it is of
  // this new folder's units.
  auto AnalyzeIt = [&] {
    return analyze({"--format=json", "-j", "2", cacheDirectory(G), Database});
  };
  std::string Losses = Directory + "/" + Program + "/losses.cpp";
  auto Edit = [&](const std::string &From, const std::string &To) {
    std::string Text = readFile(Losses);
    size_t At = Text.find(From);
    ASSERT_NE(At, std::string::npos) << From;
    Text.replace(At, From.size(), To);
    writeFile(Losses, Text);
  };

  Analysis Cold = AnalyzeIt();
  ASSERT_FALSE(Cold.Output.is_discarded()) << Cold.Run.Stderr;
  ASSERT_EQ(Cold.Output["findings"].size(), 2u) << Cold.Run.Stdout;
  Analysis Warm = AnalyzeIt();
  EXPECT_NE(Warm.Run.Stderr.find("3 of 3 translation units unchanged"),
            std::string::npos)
      << Warm.Run.Stderr;
  EXPECT_TRUE(sameText(Warm.Run.Stdout, Cold.Run.Stdout));

  Edit("torch::ones({n}); }", "torch::ones({n}).pin_memory(); }");
  Analysis Pinned = AnalyzeIt();
  EXPECT_NE(Pinned.Run.Stderr.find("1 of 3 translation units unchanged"),
            std::string::npos)
      << Pinned.Run.Stderr;
  EXPECT_TRUE(sameText(Pinned.Run.Stdout, Cold.Run.Stdout));

  Edit("torch::Tensor host_weights",
       "// A comment.\ntorch::Tensor host_weights");
  Analysis Commented = AnalyzeIt();
  // The comment moves the place main.cpp is told the weights come from.
  EXPECT_NE(Commented.Run.Stderr.find("1 of 3 translation units unchanged"),
            std::string::npos)
      << Commented.Run.Stderr;
  {
    std::ofstream Append(Losses, std::ios::app);
    Append << "\n// edited after the last run\n";
  }
  Analysis Appended = AnalyzeIt();
  EXPECT_NE(Appended.Run.Stderr.find("2 of 3 translation units unchanged"),
            std::string::npos)
      << Appended.Run.Stderr;
  EXPECT_TRUE(sameText(Appended.Run.Stdout, Cold.Run.Stdout));
}

// The summary pass keeps a unit's AST between rounds when the units
// analyzed before it already tell it something: its later analyses run the
// rules over that AST instead of a new parse, and must find exactly what a
// new parse finds. With one worker the order is fixed (largest source first),
// so some unit of each multi-unit program is told by one analyzed before it.
TEST(Acceleration, UnitsKeptBetweenSummaryRoundsFindWhatANewParseFinds) {
  const Generation &G = generations().front();
  const std::vector<std::string> Programs = {"device_from_caller_project",
                                             "loss_in_another_unit"};
  // Two copies, so that neither run reads the other's results from the
  // cache; both reuse G's precompiled prefix.
  auto Copy = [&] {
    std::string Directory = temporaryDirectory();
    for (const std::string &Program : Programs)
      copyProgram(Program, Directory, /*Golden=*/false);
    return std::make_pair(Directory, databaseFor(G, Programs, Directory));
  };
  auto [KeptDirectory, KeptDatabase] = Copy();
  auto [ParsedDirectory, ParsedDatabase] = Copy();
  Analysis Kept =
      analyze({"--format=json", "-j", "1", cacheDirectory(G), KeptDatabase});
  Analysis Parsed = analyze({"--format=json", "-j", "1", "--summary-memory=0",
                             cacheDirectory(G), ParsedDatabase});
  ASSERT_FALSE(Kept.Output.is_discarded()) << Kept.Run.Stderr;
  ASSERT_FALSE(Parsed.Output.is_discarded()) << Parsed.Run.Stderr;

  auto Counts = [](const std::string &Stderr) {
    std::smatch M;
    static const std::regex Note(
        "the summary pass analyzed ([0-9]+) translation units? again with "
        "what the others tell, ([0-9]+) of them with a new parse");
    EXPECT_TRUE(std::regex_search(Stderr, M, Note)) << Stderr;
    return M.empty() ? std::make_pair(0, 0)
                     : std::make_pair(std::stoi(M[1]), std::stoi(M[2]));
  };
  auto [KeptAgain, KeptReparsed] = Counts(Kept.Run.Stderr);
  auto [ParsedAgain, ParsedReparsed] = Counts(Parsed.Run.Stderr);
  EXPECT_EQ(KeptAgain, ParsedAgain);
  EXPECT_EQ(ParsedReparsed, ParsedAgain) << "nothing is kept with 0 MB";
  EXPECT_LT(KeptReparsed, KeptAgain) << "no unit was kept between rounds";

  std::string Expected = Parsed.Run.Stdout;
  for (size_t At; (At = Expected.find(ParsedDirectory)) != std::string::npos;)
    Expected.replace(At, ParsedDirectory.size(), KeptDirectory);
  EXPECT_EQ(Kept.Run.Stdout, Expected);
  EXPECT_GT(Kept.Output["findings"].size(), 0u);

  // The later rounds' results are cached too: run again, the pass reads them
  // and says that it parsed nothing.
  Analysis Warm = analyze({"--format=json", "-j", "1", "--summary-memory=0",
                           cacheDirectory(G), ParsedDatabase});
  auto [WarmAgain, WarmReparsed] = Counts(Warm.Run.Stderr);
  EXPECT_EQ(WarmAgain, ParsedAgain);
  EXPECT_EQ(WarmReparsed, 0) << Warm.Run.Stderr;
  EXPECT_TRUE(sameText(Warm.Run.Stdout, Parsed.Run.Stdout));
}

TEST(Acceleration, DamagedCacheGivesTheSameFindingsAndAWarning) {
  SmallProject P;
  Analysis Cold = P.analyzeIt();
  ASSERT_FALSE(Cold.Output.is_discarded()) << Cold.Run.Stderr;
  std::vector<std::string> Entries = filesWithExtension(P.Cache, ".json");
  std::vector<std::string> Headers = filesWithExtension(P.Cache, ".pch");
  ASSERT_FALSE(Entries.empty());
  ASSERT_EQ(Headers.size(), 1u) << "three units share one libtorch prefix";

  for (const std::string &Entry :
       filesWithExtension(P.Cache + "/results", ".json"))
    writeFile(Entry, "{\"inputs\": [[\"truncated");
  Analysis AfterDamagedEntries = P.analyzeIt();
  EXPECT_EQ(findingsAndFailures(AfterDamagedEntries),
            findingsAndFailures(Cold));
  EXPECT_NE(
      warningsOf(AfterDamagedEntries).find("ignored the corrupt cache entry"),
      std::string::npos)
      << warningsOf(AfterDamagedEntries);
  EXPECT_EQ(AfterDamagedEntries.Run.ExitCode, Cold.Run.ExitCode);

  // Same size, one byte changed in the middle: only a check of the contents
  // can tell.
  std::string Pch = readFile(Headers.front());
  Pch[Pch.size() / 2] ^= 0x5a;
  writeFile(Headers.front(), Pch);
  fs::remove_all(P.Cache + "/results");
  Analysis AfterDamagedHeader = P.analyzeIt();
  EXPECT_EQ(findingsAndFailures(AfterDamagedHeader), findingsAndFailures(Cold));
  EXPECT_NE(warningsOf(AfterDamagedHeader)
                .find("ignored the corrupt precompiled header"),
            std::string::npos)
      << warningsOf(AfterDamagedHeader);

  // The damaged header was replaced: the next run is clean again.
  fs::remove_all(P.Cache + "/results");
  Analysis Rebuilt = P.analyzeIt();
  EXPECT_TRUE(sameText(Rebuilt.Run.Stdout, Cold.Run.Stdout));
}

TEST(Isolation, UnitsAnalyzedInChildProcessesGiveTheSameLog) {
  SmallProject P;
  Analysis InProcess = P.analyzeIt();
  ASSERT_FALSE(InProcess.Output.is_discarded()) << InProcess.Run.Stderr;
  // --timeout runs each unit in a torchlint of its own; without a cache, so
  // that the children parse.
  Analysis Children = analyze(
      {"--format=json", "-j", "2", "--no-cache", "--timeout=600", P.Database});
  EXPECT_EQ(Children.Run.ExitCode, InProcess.Run.ExitCode)
      << Children.Run.Stderr;
  EXPECT_TRUE(sameText(Children.Run.Stdout, InProcess.Run.Stdout));
}

} // namespace
} // namespace torchlint::test
