//===--- PluginParityTest.cpp - The plugin says what the CLI says ---------===//
//
// Every test-input goes through stock clang-tidy-19 with the torchlint
// plugin loaded and -fix-errors. Its findings (rule, line, column, level,
// message) must equal the CLI's, and the file it leaves must equal the
// program with the CLI's fix-its applied once (clang-tidy applies one round;
// the CLI's --fix goes on until nothing is left, as the golden files show).
// Each rule goes through the plugin on its own specification programs (those
// named after it), and so does each program that states a language standard
// of its own, once each, against the first generation of libtorch headers the
// program builds with: the two shells run the same rules on the same AST, and
// a clang-tidy run (which parses and matches every function body of libtorch)
// costs three CLI runs, which CI's time cannot pay for every program. The
// CLI's findings for every program and both generations are checked by the
// specification tests. Each run is given the precompiled libtorch prefix the
// CLI's own analysis of the program used, so that both shells see the same
// AST (libtorch's function bodies left out) and a difference can only be the
// shell's. A program the CLI parsed without a prefix (its leading includes
// are shared by too few units to be worth one) is parsed as a user's build
// with a precompiled header would: <torch/torch.h> precompiled with every
// body, where the program starts with it. Those programs check that the
// rules find the same whether libtorch's bodies are there or not.
//===----------------------------------------------------------------------===//

#include "TestInputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {
namespace {

/// The rule ids the test-input programs expect, as program names:
/// torch-sync-in-loop is sync_in_loop.
std::set<std::string> annotatedRulesAsNames() {
  std::set<std::string> Names;
  for (const std::string &Program : programs(/*Major=*/0))
    for (const LineRule &Item : programAnnotations(Program).lineRules()) {
      std::string Name = Item.second.substr(std::string("torch-").size());
      std::replace(Name.begin(), Name.end(), '-', '_');
      Names.insert(Name);
    }
  return Names;
}

/// A one-unit program that is a rule's own (named after it, not a 2.x twin)
/// or that states a language standard: clang-tidy runs one unit at a time,
/// and the multi-unit programs are the CLI's to check.
bool checkedThroughThePlugin(const std::string &Program,
                             const std::set<std::string> &RuleNames) {
  if (isMultiUnit(Program) || !twinOf(Program).empty())
    return false;
  std::vector<std::string> Marks = programMarks(Program);
  if (std::any_of(Marks.begin(), Marks.end(), [](const std::string &Mark) {
        return Mark.rfind("c++", 0) == 0;
      }))
    return true;
  return std::any_of(
      RuleNames.begin(), RuleNames.end(), [&](const std::string &Rule) {
        return Program == Rule || Program.rfind(Rule + "_", 0) == 0;
      });
}

std::vector<std::string> parityCases() {
  const std::set<std::string> RuleNames = annotatedRulesAsNames();
  std::vector<std::string> Result;
  std::set<std::string> Seen;
  for (const std::string &Case : cases(/*GoldenOnly=*/false)) {
    const std::string &Program = splitCase(Case).second;
    if (checkedThroughThePlugin(Program, RuleNames) &&
        Seen.insert(Program).second)
      Result.push_back(Case);
  }
  return Result;
}

struct TidyRun {
  std::string Copy;
  /// Parsed with libtorch's function bodies, not with the CLI's prefix.
  bool FullParse = false;
  RunResult Run;
};

std::vector<std::string> withFile(std::vector<std::string> Args,
                                  const std::string &File) {
  Args.push_back(File);
  return Args;
}

/// The words of a compile command (the test-inputs' have no quoting).
std::vector<std::string> words(const std::string &Command) {
  std::istringstream In(Command);
  std::vector<std::string> Result;
  for (std::string Word; In >> Word;)
    Result.push_back(Word);
  return Result;
}

/// Whether a program's first line of code is `#include <torch/torch.h>`.
bool startsWithTorchHeader(const std::string &File) {
  std::istringstream In(readFile(File));
  for (std::string Line; std::getline(In, Line);) {
    size_t First = Line.find_first_not_of(" \t\r");
    if (First == std::string::npos || Line.compare(First, 2, "//") == 0)
      continue;
    return Line.compare(First, 24, "#include <torch/torch.h>") == 0;
  }
  return false;
}

/// clang-tidy's arguments that force-include <torch/torch.h> precompiled
/// with the flags of the unit File is compiled as in Database, as a user's
/// precompiled header does: most of a run is parsing libtorch, and the
/// user's code, all the rules look at, parses the same. None for a program
/// that does not start with that header, whose first line it would change.
std::vector<std::string> torchPrecompiledArguments(const std::string &Database,
                                                   const std::string &File) {
  if (!startsWithTorchHeader(File))
    return {};
  std::string Command;
  for (const json &Entry : json::parse(readFile(Database)))
    if (Entry["file"] == File)
      Command = Entry["command"].get<std::string>();
  if (Command.empty()) {
    ADD_FAILURE() << File << " is not in " << Database;
    return {};
  }
  // The flags that shape the header: all but the compiler, output and file.
  std::vector<std::string> Flags;
  std::vector<std::string> All = words(Command);
  for (size_t I = 1; I < All.size(); ++I) {
    if (All[I] == "-o" || All[I] == "-c") {
      ++I;
      continue;
    }
    Flags.push_back(All[I]);
  }
  static std::mutex Mutex;
  static std::map<std::vector<std::string>, std::string> Built;
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Built.find(Flags);
  if (It == Built.end()) {
    std::string Directory = temporaryDirectory();
    std::string Header = Directory + "/torch-prefix.h";
    std::string Pch = Header + ".pch";
    writeFile(Header, "#include <torch/torch.h>\n");
    std::vector<std::string> Args = Flags;
    for (const char *Arg : {"-x", "c++-header"})
      Args.push_back(Arg);
    Args.insert(Args.end(), {Header, "-o", Pch});
    RunResult R = run(TORCHLINT_CLANG, Args);
    if (R.ExitCode != 0)
      ADD_FAILURE() << "could not precompile <torch/torch.h> for " << File
                    << ":\n"
                    << R.Stderr;
    It = Built.emplace(Flags, R.ExitCode == 0 ? Pch : "").first;
  }
  if (It->second.empty())
    return {};
  return {"--extra-arg=-include-pch", "--extra-arg=" + It->second};
}

/// clang-tidy with Args over File of Database, <torch/torch.h> precompiled
/// where torchPrecompiledArguments() gives it.
RunResult runClangTidy(std::vector<std::string> Args,
                       const std::string &Database, const std::string &File) {
  Args.push_back(File);
  for (std::string &Arg : torchPrecompiledArguments(Database, File))
    Args.push_back(std::move(Arg));
  return run(TORCHLINT_CLANG_TIDY, Args);
}

/// For each unit of G's programs that the CLI's analysis (originals()) parsed
/// with a precompiled libtorch prefix, that header.
const std::map<std::string, std::string> &cliPrefixes(const Generation &G) {
  static std::map<std::string, std::map<std::string, std::string>> ByGeneration;
  auto It = ByGeneration.find(G.Name);
  if (It != ByGeneration.end())
    return It->second;
  (void)originals(G);
  std::map<std::string, std::string> Prefixes;
  for (const auto &[Unit, Headers] : headersReadByUnit(cacheFolder(G)))
    if (!Headers.empty())
      Prefixes[Unit] = *Headers.begin();
  return ByGeneration.emplace(G.Name, std::move(Prefixes)).first->second;
}

/// clang-tidy over a copy of each program of each generation, two at a time.
const std::map<std::string, TidyRun> &tidyRuns() {
  static std::map<std::string, TidyRun> Runs = [] {
    std::map<std::string, TidyRun> Result;
    struct Job {
      std::string Case, Database, Copy;
      std::vector<std::string> Args;
    };
    std::vector<Job> Jobs;
    for (const std::string &Case : parityCases()) {
      auto [G, Program] = splitCase(Case);
      std::string Directory = temporaryDirectory();
      std::string Copy = Directory + "/" + Program + ".cpp";
      fs::copy_file(programPath(Program), Copy);
      std::string Database = databaseFor(G, {Program}, Directory);
      Result[Case].Copy = Copy;
      std::vector<std::string> Args = {"--load=" +
                                           std::string(TORCHLINT_TIDY_PLUGIN),
                                       "-checks=" + tidyChecksFor(Program),
                                       "-fix-errors",
                                       "--quiet",
                                       "-p",
                                       Directory};
      const std::map<std::string, std::string> &Prefixes = cliPrefixes(G);
      auto Prefix = Prefixes.find(programPath(Program));
      Result[Case].FullParse = Prefix == Prefixes.end();
      if (!Result[Case].FullParse)
        Args.insert(Args.end(), {"--extra-arg=-include-pch",
                                 "--extra-arg=" + Prefix->second});
      Jobs.push_back({Case, Database, Copy, std::move(Args)});
    }
    // Two workers keep CI's two cores busy, each taking the next program as
    // soon as it is done with one.
    std::vector<RunResult> Runs(Jobs.size());
    std::atomic<size_t> Next{0};
    auto Worker = [&] {
      for (size_t J = Next++; J < Jobs.size(); J = Next++)
        Runs[J] =
            Result.at(Jobs[J].Case).FullParse
                ? runClangTidy(Jobs[J].Args, Jobs[J].Database, Jobs[J].Copy)
                : run(TORCHLINT_CLANG_TIDY,
                      withFile(Jobs[J].Args, Jobs[J].Copy));
    };
    std::thread Other(Worker);
    Worker();
    Other.join();
    for (size_t J = 0; J < Jobs.size(); ++J)
      Result[Jobs[J].Case].Run = std::move(Runs[J]);
    return Result;
  }();
  return Runs;
}

struct Diagnostic {
  unsigned Line, Column;
  std::string Level, Message, Rule;
  bool operator<(const Diagnostic &O) const {
    return std::tie(Line, Column, Rule, Level, Message) <
           std::tie(O.Line, O.Column, O.Rule, O.Level, O.Message);
  }
  bool operator==(const Diagnostic &O) const {
    return !(*this < O) && !(O < *this);
  }
};

std::ostream &operator<<(std::ostream &OS, const Diagnostic &D) {
  return OS << D.Line << ":" << D.Column << ": " << D.Level << ": " << D.Message
            << " [" << D.Rule << "]";
}

std::vector<Diagnostic> fromClangTidy(const std::string &Output,
                                      const std::string &File) {
  static const std::regex Line(
      R"(^(.*):(\d+):(\d+): (warning|error|remark): (.*) \[(torch-[a-z0-9-]+)\]$)");
  std::vector<Diagnostic> Result;
  std::istringstream In(Output);
  std::string Text;
  std::smatch M;
  while (std::getline(In, Text))
    if (std::regex_match(Text, M, Line) && M[1] == File)
      Result.push_back({static_cast<unsigned>(std::stoul(M[2])),
                        static_cast<unsigned>(std::stoul(M[3])),
                        M[4] == "remark" ? "note" : std::string(M[4]), M[5],
                        M[6]});
  std::sort(Result.begin(), Result.end());
  return Result;
}

std::vector<Diagnostic> fromCli(const Analysis &A, const std::string &File) {
  std::vector<Diagnostic> Result;
  if (auto It = A.ByFile.find(File); It != A.ByFile.end())
    for (const json &F : It->second)
      Result.push_back({F["line"].get<unsigned>(), F["column"].get<unsigned>(),
                        F["level"].get<std::string>(),
                        F["message"].get<std::string>(),
                        F["rule"].get<std::string>()});
  std::sort(Result.begin(), Result.end());
  return Result;
}

class PluginParity : public ::testing::TestWithParam<std::string> {};

TEST_P(PluginParity, FindingsEqualTheCli) {
  auto [G, Program] = splitCase(GetParam());
  const TidyRun &Tidy = tidyRuns().at(GetParam());
  std::vector<Diagnostic> Cli = fromCli(originals(G), programPath(Program));
  // A program of negative cases only draws nothing from either shell.
  if (!Cli.empty())
    ASSERT_NE(Tidy.Run.Stdout.find("[torch-"), std::string::npos)
        << "clang-tidy reported nothing; is the plugin loaded?\n"
        << Tidy.Run.Stderr;
  std::vector<Diagnostic> Plugin = fromClangTidy(Tidy.Run.Stdout, Tidy.Copy);
  EXPECT_EQ(Plugin, Cli) << "clang-tidy:\n"
                         << ::testing::PrintToString(Plugin) << "\nCLI:\n"
                         << ::testing::PrintToString(Cli);
}

/// The program with the fix-its the CLI reported for it applied once: what
/// clang-tidy -fix-errors does. (The CLI's --fix goes on until nothing is
/// left to fix; the golden files hold that.)
std::string firstRoundOfCliFixes(const Generation &G,
                                 const std::string &Program) {
  std::string Path = programPath(Program);
  std::string Text = readFile(Path);
  std::set<std::tuple<size_t, size_t, std::string>> Fixes;
  if (auto It = originals(G).ByFile.find(Path); It != originals(G).ByFile.end())
    for (const json &F : It->second)
      for (const json &Fix : F["fixes"])
        Fixes.insert({Fix["offset"].get<size_t>(), Fix["length"].get<size_t>(),
                      Fix["replacement"].get<std::string>()});
  for (auto It = Fixes.rbegin(); It != Fixes.rend(); ++It)
    Text.replace(std::get<0>(*It), std::get<1>(*It), std::get<2>(*It));
  return Text;
}

TEST_P(PluginParity, FixedFileEqualsTheCli) {
  auto [G, Program] = splitCase(GetParam());
  const TidyRun &Tidy = tidyRuns().at(GetParam());
  EXPECT_EQ(readFile(Tidy.Copy), firstRoundOfCliFixes(G, Program))
      << "clang-tidy -fix-errors left " << Program
      << ".cpp different from the CLI's fix-its applied once, with " << G.Name
      << "\n"
      << Tidy.Run.Stderr;
}

std::string testName(const ::testing::TestParamInfo<std::string> &Info) {
  std::string Name = Info.param;
  std::replace(Name.begin(), Name.end(), '/', '_');
  return Name;
}

INSTANTIATE_TEST_SUITE_P(Programs, PluginParity,
                         ::testing::ValuesIn(parityCases()), testName);

// Both ways of parsing stay covered: the CLI's prefix, and libtorch's
// bodies parsed as in a user's build.
TEST(Plugin, SomeProgramsAreCheckedWithLibtorchBodiesAndSomeWithout) {
  size_t Full = 0;
  for (const auto &[Case, Tidy] : tidyRuns())
    Full += Tidy.FullParse;
  EXPECT_GT(Full, 0u);
  EXPECT_LT(Full, tidyRuns().size());
}

TEST(Plugin, EveryRuleIsACheck) {
  RunResult R =
      run(TORCHLINT_CLANG_TIDY, {"--load=" + std::string(TORCHLINT_TIDY_PLUGIN),
                                 "-checks=-*,torch-*", "--list-checks"});
  ASSERT_EQ(R.ExitCode, 0) << R.Stderr;
  for (const json &Rule : originals(generations().front()).Output["rules"])
    EXPECT_NE(R.Stdout.find(Rule.get<std::string>()), std::string::npos)
        << Rule << " is not a check of the plugin:\n"
        << R.Stdout;
}

TEST(Plugin, EveryRuleHasAProgramCheckedThroughIt) {
  std::set<std::string> Covered;
  for (const std::string &Case : parityCases())
    for (const LineRule &Item :
         programAnnotations(splitCase(Case).second).lineRules())
      Covered.insert(Item.second);
  for (const json &Rule : originals(generations().front()).Output["rules"])
    EXPECT_TRUE(Covered.count(Rule.get<std::string>()))
        << Rule << " expects findings in no program the plugin parity runs "
        << "(name a one-unit program after the rule)";
}

// One .clang-tidy configures both shells: its CheckOptions reach the rule
// through clang-tidy in the plugin and through --config-file in the CLI.
TEST(Plugin, RuleOptionsComeFromTheSameClangTidyFile) {
  std::string Directory = temporaryDirectory();
  std::string Config = Directory + "/.clang-tidy";
  writeFile(Config, "Checks: '-*,torch-*'\n"
                    "CheckOptions:\n"
                    "  torch-dataloader-no-workers.Workers: 7\n");
  std::string Database = dataDatabase({"loader_options.cpp"});
  RunResult Cli = run(torchlintBinary(), {"--format=json", "--quiet",
                                          "--config-file=" + Config, Database});
  ASSERT_EQ(Cli.ExitCode, 0) << Cli.Stderr; // a note only
  json Output = json::parse(Cli.Stdout);
  ASSERT_EQ(Output["findings"].size(), 1u) << Cli.Stdout;
  // The count is advice: it is in the finding's remedy, its last note.
  EXPECT_NE(
      Output["findings"][0]["notes"].back()["message"].get<std::string>().find(
          "7 workers"),
      std::string::npos)
      << Output["findings"][0].dump(1);
  EXPECT_NE(Output["findings"][0].dump().find("workers(7)"), std::string::npos)
      << Output["findings"][0].dump(1);

  RunResult Default =
      run(torchlintBinary(), {"--format=json", "--quiet", Database});
  EXPECT_NE(Default.Stdout.find("2 workers"), std::string::npos)
      << Default.Stdout;

  RunResult Tidy = runClangTidy({"--load=" + std::string(TORCHLINT_TIDY_PLUGIN),
                                 "--config-file=" + Config, "--quiet", "-p",
                                 fs::path(Database).parent_path().string()},
                                Database, dataFile("loader_options.cpp"));
  EXPECT_NE(Tidy.Stdout.find("7 workers"), std::string::npos)
      << Tidy.Stdout << Tidy.Stderr;

  writeFile(Config, "CheckOptions: [unclosed\n");
  RunResult Bad = run(torchlintBinary(), {"--config-file=" + Config, Database});
  EXPECT_EQ(Bad.ExitCode, 2);
  EXPECT_NE(Bad.Stderr.find(Config + ": invalid YAML"), std::string::npos)
      << Bad.Stderr;
}

// Options are typed: a value that is not a number is said once, by each
// shell in its own way, and the default is used; the plugin writes the
// options back, so that --dump-config lists them.
TEST(Plugin, ABadOptionValueIsOneWarningAndDumpConfigListsOptions) {
  std::string Directory = temporaryDirectory();
  std::string Config = Directory + "/.clang-tidy";
  writeFile(Config, "Checks: '-*,torch-*'\n"
                    "CheckOptions:\n"
                    "  torch-dataloader-no-workers.Workers: many\n");
  std::string Database = dataDatabase({"loader_options.cpp"});
  std::string Sarif = Directory + "/run.sarif";
  RunResult Cli = run(torchlintBinary(),
                      {"--format=json", "--quiet", "--config-file=" + Config,
                       "--export-sarif=" + Sarif, Database});
  ASSERT_EQ(Cli.ExitCode, 0) << Cli.Stderr;
  std::string Said = "torch-dataloader-no-workers.Workers is 'many'";
  EXPECT_NE(Cli.Stderr.find(Said), std::string::npos) << Cli.Stderr;
  size_t First = Cli.Stderr.find(Said);
  EXPECT_EQ(Cli.Stderr.find(Said, First + 1), std::string::npos)
      << "said more than once:\n"
      << Cli.Stderr;
  EXPECT_NE(Cli.Stdout.find("2 workers"), std::string::npos) << Cli.Stdout;
  EXPECT_NE(readFile(Sarif).find(Said), std::string::npos);

  RunResult Tidy = runClangTidy({"--load=" + std::string(TORCHLINT_TIDY_PLUGIN),
                                 "--config-file=" + Config, "-p",
                                 fs::path(Database).parent_path().string()},
                                Database, dataFile("loader_options.cpp"));
  EXPECT_NE((Tidy.Stdout + Tidy.Stderr)
                .find("invalid configuration value "
                      "'many' for option "
                      "'torch-dataloader-no-workers."
                      "Workers'"),
            std::string::npos)
      << Tidy.Stdout << Tidy.Stderr;
  EXPECT_NE(Tidy.Stdout.find("2 workers"), std::string::npos) << Tidy.Stdout;

  RunResult Dump =
      run(TORCHLINT_CLANG_TIDY, {"--load=" + std::string(TORCHLINT_TIDY_PLUGIN),
                                 "-checks=-*,torch-*", "--dump-config"});
  ASSERT_EQ(Dump.ExitCode, 0) << Dump.Stderr;
  EXPECT_NE(Dump.Stdout.find("torch-dataloader-no-workers.Workers"),
            std::string::npos)
      << Dump.Stdout;
}

} // namespace
} // namespace torchlint::test
