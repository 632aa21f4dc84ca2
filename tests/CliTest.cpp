//===--- CliTest.cpp - The command line as users and CI see it
//-------------===//

#include "TestInputs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {
namespace {

std::string databaseFor(const std::vector<std::string> &Names) {
  return dataDatabase(Names);
}

RunResult torchlint(const std::vector<std::string> &Args,
                    const std::string &Directory = "") {
  return run(torchlintBinary(), Args, Directory);
}

/// One line on standard error, naming what is wrong; never a crash.
void expectCleanError(const RunResult &R, const std::string &Needle) {
  EXPECT_EQ(R.ExitCode, 2) << R.Stderr;
  EXPECT_NE(R.Stderr.find(Needle), std::string::npos)
      << "stderr does not mention '" << Needle << "':\n"
      << R.Stderr;
  EXPECT_EQ(std::count(R.Stderr.begin(), R.Stderr.end(), '\n'), 1) << R.Stderr;
  EXPECT_EQ(R.Stderr.find("Stack dump"), std::string::npos) << R.Stderr;
}

std::vector<unsigned> linesOf(const json &Output, const std::string &Rule) {
  std::vector<unsigned> Lines;
  for (const json &F : Output["findings"])
    if (F["rule"] == Rule)
      Lines.push_back(F["line"].get<unsigned>());
  return Lines;
}

// The program with a finding of each kind, analyzed once per process.
const RunResult &cliProgramJson() {
  static RunResult R =
      torchlint({"--format=json", databaseFor({"cli_program.cpp"})});
  return R;
}

TEST(BadInput, MissingDatabase) {
  expectCleanError(torchlint({"/nonexistent/compile_commands.json"}),
                   "/nonexistent/compile_commands.json: no such file");
}

TEST(BadInput, DirectoryWithoutDatabase) {
  std::string Dir = temporaryDirectory();
  expectCleanError(torchlint({Dir}),
                   Dir + ": directory has no compile_commands.json");
}

TEST(BadInput, InvalidJsonNamesLineAndColumn) {
  std::string Path = temporaryDirectory() + "/compile_commands.json";
  writeFile(Path, "[\n  {\"directory\": \"/tmp\",\n    \"file\": oops}\n]\n");
  expectCleanError(torchlint({Path}),
                   Path + ": invalid JSON at line 3, column");
}

TEST(BadInput, NotAnArray) {
  std::string Path = temporaryDirectory() + "/compile_commands.json";
  writeFile(Path, "{\"directory\": \"/tmp\"}");
  expectCleanError(torchlint({Path}), "expected a JSON array");
}

TEST(BadInput, EntryWithoutFile) {
  std::string Path = temporaryDirectory() + "/compile_commands.json";
  writeFile(Path, R"([{"directory": "/tmp", "command": "c++ -c a.cpp"}])");
  expectCleanError(torchlint({Path}), Path + ": entry 1 has no \"file\"");
}

TEST(BadInput, EntryWithoutCommand) {
  std::string Path = temporaryDirectory() + "/compile_commands.json";
  writeFile(Path, R"([{"directory": "/tmp", "file": "a.cpp"}])");
  expectCleanError(torchlint({Path}),
                   "entry 1 (a.cpp) has neither \"command\" nor \"arguments\"");
}

TEST(BadInput, ListedSourceDoesNotExist) {
  expectCleanError(
      torchlint({databaseFor({"plain.cpp"}), "/nonexistent/x.cpp"}),
      "/nonexistent/x.cpp: no such file");
}

TEST(BadInput, ListedSourceNotInDatabase) {
  expectCleanError(
      torchlint({databaseFor({"plain.cpp"}), dataFile("broken.cpp")}),
      "broken.cpp: not in the compilation database");
}

TEST(ExitStatus, UsageErrorsAreTwo) {
  expectCleanError(torchlint({"--frobnicate", "x"}),
                   "unknown option '--frobnicate'");
  expectCleanError(torchlint({}), "no compilation database given");
  expectCleanError(torchlint({"--format=xml", "x"}), "invalid format 'xml'");
  expectCleanError(torchlint({"-j", "0", "x"}), "invalid job count '0'");
  expectCleanError(torchlint({"--fail-on=fatal", "x"}),
                   "invalid --fail-on level");
  expectCleanError(torchlint({"--checks=-*", databaseFor({"plain.cpp"})}),
                   "no rule is enabled");
}

TEST(ExitStatus, ZeroWithoutFindings) {
  RunResult R = torchlint({databaseFor({"plain.cpp"})});
  EXPECT_EQ(R.ExitCode, 0) << R.Stderr;
  EXPECT_EQ(R.Stdout, "");
}

TEST(ExitStatus, OneWithFindingsAtOrAboveFailOn) {
  std::string Database = databaseFor({"cli_program.cpp"});
  RunResult Default = torchlint({Database});
  EXPECT_EQ(Default.ExitCode, 1) << Default.Stderr;
  // Only the warning-level rule: below --fail-on=error, at --fail-on=warning.
  RunResult Errors = torchlint(
      {"--checks=-*,torch-unchecked-cuda", "--fail-on=error", Database});
  EXPECT_EQ(Errors.ExitCode, 0) << Errors.Stdout << Errors.Stderr;
  EXPECT_NE(Errors.Stdout.find("[torch-unchecked-cuda]"), std::string::npos);
  EXPECT_EQ(Errors.Stdout.find("[torch-device-mismatch]"), std::string::npos);
}

TEST(ExitStatus, TwoWhenAUnitFailsAndTheOthersAreStillReported) {
  RunResult R =
      torchlint({"--format=json", databaseFor({"broken.cpp", "plain.cpp"})});
  EXPECT_EQ(R.ExitCode, 2);
  json Output = json::parse(R.Stdout);
  ASSERT_EQ(Output["failures"].size(), 1u);
  EXPECT_EQ(Output["failures"][0]["file"], dataFile("broken.cpp"));
  EXPECT_NE(Output["failures"][0]["message"].get<std::string>().find(
                "'missing_header.h' file not found"),
            std::string::npos);
  EXPECT_EQ(Output["translationUnits"], 2);
  EXPECT_NE(R.Stderr.find(dataFile("broken.cpp") + " does not compile"),
            std::string::npos)
      << R.Stderr;
}

// As clang-tidy: a unit with compile errors (here a header the build
// generates, not there yet) is analyzed where clang recovered, never where
// it had to guess, and without fix-its; the run still fails with status 2.
TEST(ExitStatus, AUnitThatDoesNotCompileIsAnalyzedWhereClangRecovered) {
  std::string Cache = temporaryDirectory();
  std::vector<std::string> Args = {"--format=json", "--cache-dir=" + Cache,
                                   databaseFor({"missing_generated_header.cpp"})};
  RunResult Cold = torchlint(Args);
  EXPECT_EQ(Cold.ExitCode, 2) << Cold.Stderr;
  EXPECT_NE(Cold.Stderr.find(dataFile("missing_generated_header.cpp") +
                             " does not compile; analyzed only where clang "
                             "recovered, without fix-its"),
            std::string::npos)
      << Cold.Stderr;
  json Output = json::parse(Cold.Stdout);
  ASSERT_EQ(Output["failures"].size(), 1u) << Cold.Stdout;
  EXPECT_TRUE(Output["failures"][0]["analyzedInPart"].get<bool>());
  EXPECT_NE(Output["failures"][0]["message"].get<std::string>().find(
                "'generated/model_config.h' file not found"),
            std::string::npos);
  EXPECT_EQ(linesOf(Output, "torch-device-mismatch"),
            (std::vector<unsigned>{13}))
      << Cold.Stdout;
  EXPECT_EQ(linesOf(Output, "torch-unchecked-cuda"),
            (std::vector<unsigned>{8}));
  for (const json &F : Output["findings"]) {
    EXPECT_NE(F["line"], 15) << F;
    EXPECT_TRUE(F["fixes"].empty()) << F;
  }
  // The cache keeps the unit's error with its findings.
  RunResult Warm = torchlint(Args);
  EXPECT_EQ(Warm.ExitCode, 2);
  EXPECT_EQ(Warm.Stdout, Cold.Stdout);
}

TEST(Suppression, NolintFormsAsClangTidy) {
  const RunResult &R = cliProgramJson();
  json Output = json::parse(R.Stdout);
  // Lines 11 to 18 use every form; only the NOLINT naming another check
  // (line 15) leaves the finding in place.
  EXPECT_EQ(linesOf(Output, "torch-unchecked-cuda"),
            (std::vector<unsigned>{10, 15}));
  EXPECT_EQ(linesOf(Output, "torch-device-mismatch"),
            (std::vector<unsigned>{20}));
}

TEST(Checks, GlobsSelectRules) {
  RunResult List = torchlint({"--list-checks", "--checks=-*,torch-device-*"});
  EXPECT_EQ(List.ExitCode, 0);
  EXPECT_NE(List.Stdout.find("torch-device-mismatch"), std::string::npos);
  EXPECT_EQ(List.Stdout.find("torch-unchecked-cuda"), std::string::npos);
  EXPECT_EQ(List.Stdout.find("torch-hardcoded-cpu-device"), std::string::npos);

  RunResult All = torchlint({"--list-checks"});
  EXPECT_NE(All.Stdout.find("torch-unchecked-cuda"), std::string::npos);
  EXPECT_NE(All.Stdout.find("torch-hardcoded-cpu-device"), std::string::npos);

  RunResult Without =
      torchlint({"--list-checks", "--checks=-torch-unchecked-*"});
  EXPECT_EQ(Without.Stdout.find("torch-unchecked-cuda"), std::string::npos);
  EXPECT_NE(Without.Stdout.find("torch-device-mismatch"), std::string::npos);
}

// A unit that cannot be analyzed is a result too: read back while the files
// it read are as they were and the header it missed is still missing, and
// parsed again as soon as that header appears where the search looked.
TEST(Cache, AFailureIsKeptUntilTheMissingHeaderAppears) {
  std::string Directory = temporaryDirectory();
  fs::create_directories(Directory + "/include");
  writeFile(Directory + "/unit.cpp", "#include <torchlint_missing.h>\n"
                                     "int main() { return answer(); }\n");
  json Database = json::array(
      {{{"directory", Directory},
        {"file", Directory + "/unit.cpp"},
        {"command", "c++ -std=c++17 -I include -c unit.cpp"}}});
  writeFile(Directory + "/compile_commands.json", Database.dump());
  std::vector<std::string> Args = {"--format=json",
                                   "--cache-dir=" + Directory + "/cache",
                                   Directory + "/compile_commands.json"};
  RunResult Cold = torchlint(Args);
  EXPECT_EQ(Cold.ExitCode, 2) << Cold.Stderr;
  json Failures = json::parse(Cold.Stdout)["failures"];
  ASSERT_EQ(Failures.size(), 1u) << Cold.Stdout;
  EXPECT_NE(Failures[0]["message"].get<std::string>().find(
                "'torchlint_missing.h' file not found"),
            std::string::npos)
      << Failures[0];

  RunResult Warm = torchlint(Args);
  EXPECT_NE(Warm.Stderr.find("1 of 1 translation units unchanged"),
            std::string::npos)
      << Warm.Stderr;
  EXPECT_EQ(Warm.Stdout, Cold.Stdout);
  EXPECT_EQ(Warm.ExitCode, 2);

  RunResult Plain = torchlint(
      {"--format=json", "--no-cache", Directory + "/compile_commands.json"});
  EXPECT_EQ(Plain.Stderr.find("unchanged"), std::string::npos) << Plain.Stderr;
  EXPECT_EQ(Plain.Stdout, Cold.Stdout);

  writeFile(Directory + "/include/torchlint_missing.h",
            "inline int answer() { return 0; }\n");
  RunResult Installed = torchlint(Args);
  EXPECT_EQ(Installed.Stderr.find("unchanged"), std::string::npos)
      << Installed.Stderr;
  EXPECT_EQ(Installed.ExitCode, 0) << Installed.Stdout << Installed.Stderr;
  EXPECT_TRUE(json::parse(Installed.Stdout)["failures"].empty());
}

// As in clang-tidy: a rule off by default runs, and is listed, only where
// a glob names it; '*' lists every rule and marks those off by default.
TEST(Checks, RulesOffByDefaultRunOnlyWhereNamed) {
  const std::string Off = "torch-data-parallel-per-step";
  RunResult Default = torchlint({"--list-checks"});
  EXPECT_EQ(Default.Stdout.find(Off), std::string::npos) << Default.Stdout;
  EXPECT_NE(Default.Stdout.find("torch-data-parallel-not-cloneable\n"),
            std::string::npos);

  RunResult All = torchlint({"--list-checks", "--checks=*"});
  EXPECT_NE(All.Stdout.find("    " + Off + " (off by default)\n"),
            std::string::npos)
      << All.Stdout;
  EXPECT_EQ(All.Stdout.find("torch-device-mismatch (off"), std::string::npos);
  RunResult Named = torchlint({"--list-checks", "--checks=-*," + Off});
  EXPECT_NE(Named.Stdout.find(Off), std::string::npos) << Named.Stdout;
  RunResult Family = torchlint({"--list-checks", "--checks=torch-*"});
  EXPECT_NE(Family.Stdout.find(Off), std::string::npos) << Family.Stdout;

  RunResult Json = torchlint({"--list-checks", "--checks=*", "--format=json"});
  ASSERT_EQ(Json.ExitCode, 0) << Json.Stderr;
  json Rules = json::parse(Json.Stdout);
  size_t OffCount = 0;
  for (const json &Rule : Rules) {
    EXPECT_FALSE(Rule["summary"].get<std::string>().empty());
    EXPECT_TRUE(Rule["level"] == "error" || Rule["level"] == "warning" ||
                Rule["level"] == "note")
        << Rule;
    if (!Rule["enabledByDefault"].get<bool>()) {
      ++OffCount;
      EXPECT_EQ(Rule["id"], Off);
    }
  }
  EXPECT_EQ(OffCount, 1u);
  EXPECT_EQ(Rules.size(), json::parse(torchlint({"--list-checks",
                                                  "--format=json"})
                                          .Stdout)
                                  .size() +
                              1);
}

TEST(UserCode, ProjectHeadersReportedAndFiltered) {
  std::string Database = databaseFor({"with_header.cpp"});
  json All = json::parse(torchlint({"--format=json", Database}).Stdout);
  std::set<std::string> Files;
  for (const json &F : All["findings"])
    Files.insert(F["file"].get<std::string>());
  EXPECT_EQ(Files, (std::set<std::string>{dataFile("project_model.h"),
                                          dataFile("with_header.cpp")}));

  // The main file is always reported; headers only when they match.
  json Filtered = json::parse(
      torchlint({"--format=json", "--header-filter=no_such_header", Database})
          .Stdout);
  ASSERT_EQ(Filtered["findings"].size(), 1u);
  EXPECT_EQ(Filtered["findings"][0]["file"], dataFile("with_header.cpp"));
}

TEST(UserCode, LineFilterShowsOnlyTheListedLinesAsClangTidy) {
  std::string Database = databaseFor({"with_header.cpp"});
  json All = json::parse(torchlint({"--format=json", Database}).Stdout);
  std::vector<json> InHeader;
  for (const json &F : All["findings"])
    if (F["file"] == dataFile("project_model.h"))
      InHeader.push_back(F);
  ASSERT_FALSE(InHeader.empty());
  unsigned Line = InHeader.front()["line"].get<unsigned>();

  // A name matches the end of a path; a range keeps the lines inside it.
  RunResult OneLine =
      torchlint({"--format=json",
                 "--line-filter=[{\"name\":\"project_model.h\",\"lines\":[[" +
                     std::to_string(Line) + "," + std::to_string(Line) + "]]}]",
                 Database});
  json Shown = json::parse(OneLine.Stdout);
  ASSERT_FALSE(Shown["findings"].empty());
  for (const json &F : Shown["findings"]) {
    EXPECT_EQ(F["file"], dataFile("project_model.h"));
    EXPECT_EQ(F["line"], Line);
  }

  // Nothing on the listed lines: nothing shown, and the exit status agrees.
  RunResult None = torchlint(
      {"--format=json",
       "--line-filter=[{\"name\":\"with_header.cpp\",\"lines\":[[1,1]]}]",
       Database});
  EXPECT_EQ(None.ExitCode, 0) << None.Stderr;
  EXPECT_TRUE(json::parse(None.Stdout)["findings"].empty());

  expectCleanError(torchlint({"--line-filter=[{\"lines\":[[1,2]]}]", Database}),
                   "invalid --line-filter: an entry without a file name");
  expectCleanError(
      torchlint(
          {"--line-filter=[{\"name\":\"a.cpp\",\"lines\":[[3,1]]}]", Database}),
      "the range [3, 1] of a.cpp is empty");
}

TEST(Output, TextLooksLikeClang) {
  RunResult R = torchlint({"--color=never", databaseFor({"cli_program.cpp"})});
  std::string Expected = dataFile("cli_program.cpp") +
                         ":10:13: warning: 'torch::kCUDA' is used without "
                         "checking 'torch::cuda::is_available()'";
  EXPECT_NE(R.Stdout.find(Expected), std::string::npos) << R.Stdout;
  EXPECT_NE(R.Stdout.find("   10 |   model->to(torch::kCUDA);\n"
                          "      |             ^~~~~~~~~~~~\n"),
            std::string::npos)
      << R.Stdout;
  EXPECT_NE(R.Stdout.find(": note: the GPU is used here"), std::string::npos);
  EXPECT_EQ(R.Stdout.find('\x1b'), std::string::npos) << "colour without a tty";
  // Not a terminal: no progress lines.
  EXPECT_EQ(R.Stderr.find("[1/1]"), std::string::npos) << R.Stderr;

  RunResult Colored = torchlint(
      {"--color=always", "--quiet", databaseFor({"cli_program.cpp"})});
  EXPECT_NE(Colored.Stdout.find('\x1b'), std::string::npos);
  EXPECT_EQ(Colored.Stderr, "");
}

TEST(Output, ProgressOnATerminal) {
  // script(1) gives the command a terminal; its output is what the terminal
  // showed, standard error included.
  if (!fs::exists("/usr/bin/script"))
    GTEST_SKIP() << "script(1) is not installed";
  std::string Command = torchlintBinary() + " --color=never " +
                        databaseFor({"plain.cpp", "broken.cpp"});
  RunResult R = run("/usr/bin/script", {"-qec", Command, "/dev/null"});
  EXPECT_NE(R.Stdout.find("] " + dataFile("plain.cpp")), std::string::npos)
      << R.Stdout;
  EXPECT_NE(R.Stdout.find("[2/2] "), std::string::npos) << R.Stdout;

  RunResult Quiet =
      run("/usr/bin/script", {"-qec", Command + " --quiet", "/dev/null"});
  EXPECT_EQ(Quiet.Stdout.find("[1/2]"), std::string::npos) << Quiet.Stdout;
}

TEST(Output, JsonAndSarifToAFile) {
  std::string Dir = temporaryDirectory();
  std::string Database = databaseFor({"cli_program.cpp"});
  RunResult R =
      torchlint({"--format=sarif", "-o", Dir + "/out.sarif", Database});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Stdout, "");
  json Sarif = json::parse(readFile(Dir + "/out.sarif"));
  EXPECT_EQ(Sarif["version"], "2.1.0");
  ASSERT_EQ(Sarif["runs"].size(), 1u);
  // unchecked-cuda twice, device-mismatch, eval-without-no-grad.
  EXPECT_EQ(Sarif["runs"][0]["results"].size(), 4u);
  EXPECT_EQ(Sarif["runs"][0]["tool"]["driver"]["name"], "torchlint");

  json Output = json::parse(cliProgramJson().Stdout);
  EXPECT_EQ(Output["findings"].size(), 4u);
  for (const json &F : Output["findings"]) {
    EXPECT_TRUE(F.contains("rule") && F.contains("line") &&
                F.contains("column"));
    EXPECT_TRUE(F.contains("notes") && F.contains("fixes"));
  }
}

TEST(ResourceDir, FoundFromAnotherDirectoryAndWhenInstalledElsewhere) {
  std::string Database = databaseFor({"cli_program.cpp"});
  // The binary from the build tree, started from an unrelated directory.
  RunResult FromRoot = run(torchlintBinary(), {"--format=json", Database}, "/");
  EXPECT_EQ(FromRoot.ExitCode, 1) << FromRoot.Stderr;
  EXPECT_TRUE(json::parse(FromRoot.Stdout)["failures"].empty());

  // A copy of the binary elsewhere, as an installation would place it.
  std::string Installed = temporaryDirectory() + "/bin";
  fs::create_directories(Installed);
  fs::copy_file(torchlintBinary(), Installed + "/torchlint");
  RunResult Copy = run(Installed + "/torchlint", {"--format=json", Database},
                       temporaryDirectory());
  EXPECT_EQ(Copy.ExitCode, 1) << Copy.Stderr;
  EXPECT_TRUE(json::parse(Copy.Stdout)["failures"].empty());
}

TEST(Shards, EveryUnitInOneShardAndTheLogsMergeBack) {
  // Units that fail to parse name themselves in the output, cheaply.
  std::string Dir = temporaryDirectory();
  json Database = json::array();
  for (int I = 0; I < 5; ++I) {
    std::string File = Dir + "/unit" + std::to_string(I) + ".cpp";
    writeFile(File, std::string(200 * (I + 1), ' ') + "not C++\n");
    Database.push_back(
        {{"directory", Dir}, {"file", File}, {"command", "c++ -c " + File}});
  }
  writeFile(Dir + "/compile_commands.json", Database.dump());
  std::multiset<std::string> Analyzed;
  std::vector<std::string> Logs;
  for (int K = 1; K <= 2; ++K) {
    std::string Log = Dir + "/shard" + std::to_string(K) + ".sarif";
    RunResult R = torchlint({"--format=json", "--quiet",
                             "--shard=" + std::to_string(K) + "/2",
                             "--export-sarif=" + Log, Dir});
    EXPECT_EQ(R.ExitCode, 2) << R.Stderr;
    json Output = json::parse(R.Stdout);
    EXPECT_GT(Output["translationUnits"].get<int>(), 0);
    for (const json &Failure : Output["failures"])
      Analyzed.insert(Failure["file"].get<std::string>());
    Logs.push_back(Log);
  }
  EXPECT_EQ(Analyzed.size(), 5u);
  EXPECT_EQ(std::set<std::string>(Analyzed.begin(), Analyzed.end()).size(), 5u);

  std::string Merged = Dir + "/all.sarif";
  RunResult M = torchlint({"merge", Logs[0], Logs[1], "-o", Merged});
  ASSERT_EQ(M.ExitCode, 0) << M.Stderr;
  json Log = json::parse(readFile(Merged));
  ASSERT_EQ(Log["runs"].size(), 1u);
  const json &Invocations = Log["runs"][0]["invocations"];
  ASSERT_EQ(Invocations.size(), 2u);
  EXPECT_EQ(Invocations[0]["toolExecutionNotifications"].size() +
                Invocations[1]["toolExecutionNotifications"].size(),
            5u);

  // As the analysis exits: 2 for a log of a run that could not analyze a
  // unit.
  EXPECT_EQ(torchlint({"merge", "--fail-on=error", Merged, "-o", "-"}).ExitCode,
            2);
  expectCleanError(torchlint({"merge", "--fail-on=severe", Merged}),
                   "invalid --fail-on level 'severe'");
  expectCleanError(torchlint({"merge", Dir + "/none.sarif"}),
                   Dir + "/none.sarif: cannot read");
  expectCleanError(torchlint({"merge"}), "merge needs at least one SARIF log");
  expectCleanError(torchlint({"--shard=3/2", Dir}), "invalid --shard '3/2'");
}

TEST(Parallelism, OutputIsIdenticalForEveryJobCount) {
  std::vector<std::string> Sources = {
      testInputsDir() + "/device_mismatch_flow.cpp",
      testInputsDir() + "/hardcoded_cpu_device.cpp",
      testInputsDir() + "/unchecked_cuda.cpp"};
  std::vector<std::string> Serial = {"-j", "1", "--quiet",
                                     testInputsDatabase()};
  std::vector<std::string> Parallel = {"-j", "2", "--quiet",
                                       testInputsDatabase()};
  Serial.insert(Serial.end(), Sources.begin(), Sources.end());
  Parallel.insert(Parallel.end(), Sources.begin(), Sources.end());
  RunResult One = torchlint(Serial);
  RunResult Two = torchlint(Parallel);
  EXPECT_EQ(One.ExitCode, Two.ExitCode);
  EXPECT_FALSE(One.Stdout.empty());
  EXPECT_EQ(One.Stdout, Two.Stdout);
}

// A build system's action (Bazel's) runs in a sandbox whose path changes
// from run to run: with --hermetic, the same unit with the same flags gives
// the same bytes wherever it is, reading no .clang-tidy or git work tree
// around it and writing nothing but its log (no cache, and not the
// dependency file the command asks for). The command is the one Bazel's
// auto-configured GCC toolchain writes, and the source is a link to the
// workspace's file, as in Bazel's sandbox.
TEST(Hermetic, TheSameInputsGiveTheSameBytesFromAnyDirectory) {
  json Model = json::parse(readFile(testInputsDatabase())).at(0);
  std::vector<std::string> Arguments = {
      "/usr/bin/gcc", "-U_FORTIFY_SOURCE", "-fstack-protector", "-Wall",
      "-Wunused-but-set-parameter", "-Wno-free-nonheap-object",
      "-fno-omit-frame-pointer", "-g0", "-O2", "-D_FORTIFY_SOURCE=1",
      "-DNDEBUG", "-ffunction-sections", "-fdata-sections", "-std=c++17",
      "-MD", "-MF", "bazel-out/k8-opt/bin/_objs/unit/unit.pic.d",
      "-frandom-seed=bazel-out/k8-opt/bin/_objs/unit/unit.pic.o", "-fPIC",
      "-iquote", ".", "-iquote", "bazel-out/k8-opt/bin"};
  std::istringstream Words(Model["command"].get<std::string>());
  for (std::string Word, Previous; Words >> Word; Previous = Word) {
    if (Previous == "-isystem")
      Arguments.push_back("-isystem");
    if (Previous == "-isystem" || Word.rfind("-D", 0) == 0 ||
        Word.rfind("-std=", 0) == 0)
      Arguments.push_back(Word);
  }
  for (const char *Macro : {"__DATE__", "__TIMESTAMP__", "__TIME__"})
    Arguments.push_back("-D" + std::string(Macro) + "=\"redacted\"");
  Arguments.insert(Arguments.end(),
                   {"-Wno-builtin-macro-redefined", "-c", "pkg/unit.cpp", "-o",
                    "bazel-out/k8-opt/bin/_objs/unit/unit.pic.o"});

  // Bazel's sandbox links each input to the workspace's file.
  std::string Workspace = temporaryDirectory();
  fs::copy_file(dataFile("cli_program.cpp"), Workspace + "/unit.cpp");
  auto Sandbox = [&](const std::string &Directory) {
    fs::create_directories(Directory + "/pkg");
    fs::create_symlink(Workspace + "/unit.cpp", Directory + "/pkg/unit.cpp");
    json Database = json::array({{{"directory", Directory},
                                  {"file", "pkg/unit.cpp"},
                                  {"arguments", Arguments}}});
    writeFile(Directory + "/compile_commands.json", Database.dump(1));
    return torchlint({"--hermetic", "--format=sarif", "-o", "unit.sarif",
                      "compile_commands.json"},
                     Directory);
  };
  std::string First = temporaryDirectory() + "/execroot";
  std::string Second = temporaryDirectory() + "/sandbox/7/execroot";
  // What a run that is not hermetic would read: a .clang-tidy it cannot
  // parse above the source, and a git work tree around it.
  writeFile(First + "/.clang-tidy", "CheckOptions: [unclosed\n");
  fs::create_directories(First + "/pkg/.git");
  RunResult One = Sandbox(First);
  RunResult Two = Sandbox(Second);
  EXPECT_EQ(One.ExitCode, 1) << One.Stderr;
  EXPECT_EQ(Two.ExitCode, 1) << Two.Stderr;
  std::string Log = readFile(First + "/unit.sarif");
  EXPECT_EQ(Log, readFile(Second + "/unit.sarif"));
  EXPECT_EQ(Log.find(First), std::string::npos);
  EXPECT_EQ(Log.find(Workspace), std::string::npos);
  json Run = json::parse(Log)["runs"][0];
  ASSERT_FALSE(Run["results"].empty()) << Log;
  EXPECT_EQ(Run["results"][0]["locations"][0]["physicalLocation"]
               ["artifactLocation"]["uri"],
            "pkg/unit.cpp");
  EXPECT_TRUE(Run["invocations"][0]["toolExecutionNotifications"].empty())
      << Log;
  // What a build's test of the merged logs asks: a finding at a level.
  std::set<std::string> Levels;
  for (const json &Result : Run["results"])
    Levels.insert(Result["level"].get<std::string>());
  for (const std::string &Level : {"note", "warning", "error"}) {
    bool Expected = Levels.count("error") ||
                    (Level != "error" && Levels.count("warning")) ||
                    (Level == "note" && Levels.count("note"));
    EXPECT_EQ(torchlint({"merge", "--fail-on=" + Level, "unit.sarif", "-o",
                         "merged.sarif"},
                        First)
                  .ExitCode,
              Expected ? 1 : 0)
        << Level;
  }
  for (const std::string &Directory : {First, Second}) {
    EXPECT_FALSE(fs::exists(Directory + "/.torchlint-cache")) << Directory;
    EXPECT_FALSE(fs::exists(Directory + "/bazel-out")) << Directory;
  }

  // Without --hermetic the same run reads both, and names where it ran.
  RunResult Plain = torchlint({"--no-cache", "--format=sarif",
                               "compile_commands.json"},
                              First);
  EXPECT_NE(Plain.Stdout.find(First), std::string::npos);
  EXPECT_NE(Plain.Stdout, Log);
}

// A flow that runs out of budget says so, naming the function, in the text
// and in SARIF, from a warm cache too; it is never a finding, and never
// fails the run.
TEST(Cli, AFlowOutOfBudgetIsAToolWarningNamingTheFunction) {
  std::string Dir = temporaryDirectory();
  std::string Database =
      dataDatabase({testInputsDir() + "/eval_without_no_grad.cpp"});
  std::string Cache = "--cache-dir=" + temporaryDirectory();
  // (SARIF's messages are sentences: capitalised.)
  const std::string Said = "he device flow gave up on 'evaluate' (";
  for (const char *Round : {"cold", "warm"}) {
    RunResult R =
        torchlint({"--format=json", "--flow-budget=1", Cache,
                   "--export-sarif=" + Dir + "/" + Round + ".sarif", Database});
    ASSERT_NE(R.ExitCode, 2) << R.Stderr;
    EXPECT_NE(R.Stderr.find("torchlint: warning: "), std::string::npos);
    EXPECT_NE(R.Stderr.find(Said), std::string::npos) << Round << ":\n"
                                                      << R.Stderr;
    json Log = json::parse(readFile(Dir + "/" + Round + ".sarif"));
    bool Notified = false;
    for (const json &N :
         Log["runs"][0]["invocations"][0]["toolExecutionNotifications"])
      Notified |= N["level"] == "warning" &&
                  N["message"]["text"].get<std::string>().find(Said) !=
                      std::string::npos;
    EXPECT_TRUE(Notified) << Round;
    // Bound to a name: a range-for over a member of a temporary would walk
    // freed memory.
    json Output = json::parse(R.Stdout);
    for (const json &F : Output["findings"])
      EXPECT_EQ(F["message"].get<std::string>().find("gave up"),
                std::string::npos);
  }
  // With the default budget the same program settles.
  RunResult Default = torchlint({"--format=json", "--no-cache", Database});
  EXPECT_EQ(Default.Stderr.find("gave up"), std::string::npos)
      << Default.Stderr;
  expectCleanError(torchlint({"--flow-budget=0", Database}), "--flow-budget");
  expectCleanError(torchlint({"--summary-memory=lots", Database}),
                   "--summary-memory");
}

} // namespace
} // namespace torchlint::test
