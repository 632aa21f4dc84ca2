//===--- main.cpp - torchlint: the command-line shell over the rules ------===//

#include "cache/PrecompiledPrefix.h"
#include "cache/ResultCache.h"
#include "compile/CompileDatabase.h"
#include "driver/Analyzer.h"
#include "driver/Configuration.h"
#include "driver/FixApplier.h"
#include "driver/KeptUnits.h"
#include "driver/LineFilter.h"
#include "driver/Options.h"
#include "driver/ProgramRounds.h"
#include "driver/RuleSetup.h"
#include "driver/Scheduler.h"
#include "driver/UnitProcess.h"
#include "lsp/LanguageServer.h"
#include "output/Report.h"
#include "output/SarifMerge.h"
#include "output/Suppressions.h"
#include "output/Writers.h"
#include "rules/RuleRegistry.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

using namespace torchlint;

namespace {

/// The same entry of the database: one file compiled one way.
bool sameEntry(const CompileEntry &A, const CompileEntry &B) {
  return A.File == B.File && A.Directory == B.Directory &&
         A.Arguments == B.Arguments;
}

constexpr int ExitClean = 0;
constexpr int ExitFindings = 1;
constexpr int ExitError = 2;

int fail(const llvm::Twine &Message) {
  llvm::errs() << "torchlint: error: " << Message << '\n';
  return ExitError;
}

/// The entries for the requested sources, or all of them.
llvm::Expected<std::vector<CompileEntry>>
selectEntries(const CompileDatabase &Database,
              const std::vector<std::string> &Sources) {
  if (Sources.empty())
    return Database.Entries;
  llvm::SmallString<256> Cwd;
  llvm::sys::fs::current_path(Cwd);
  std::vector<CompileEntry> Selected;
  for (const std::string &Source : Sources) {
    std::string Path = absolutePath(Source, std::string(Cwd));
    if (!llvm::sys::fs::exists(Path))
      return llvm::createStringError(std::errc::no_such_file_or_directory,
                                     "%s: no such file", Source.c_str());
    bool Found = false;
    for (const CompileEntry &Entry : Database.Entries)
      if (Entry.File == Path) {
        Selected.push_back(Entry);
        Found = true;
      }
    if (!Found)
      return llvm::createStringError(std::errc::invalid_argument,
                                     "%s: not in the compilation database %s",
                                     Source.c_str(), Database.Path.c_str());
  }
  return Selected;
}

bool useColor(ColorMode Mode, bool ToStdout) {
  if (Mode != ColorMode::Auto)
    return Mode == ColorMode::Always;
  if (!ToStdout || std::getenv("NO_COLOR"))
    return false;
  return llvm::sys::Process::StandardOutIsDisplayed() &&
         llvm::sys::Process::StandardOutHasColors();
}

/// After fixes changed Changed: the units whose main file changed, or every
/// unit when a header changed (any unit may include it).
std::vector<CompileEntry>
entriesToReanalyze(const std::vector<CompileEntry> &Entries,
                   const std::vector<std::string> &Changed) {
  std::set<std::string> Mains;
  for (const CompileEntry &Entry : Entries)
    Mains.insert(Entry.File);
  for (const std::string &File : Changed)
    if (!Mains.count(File))
      return Entries;
  std::vector<CompileEntry> Selected;
  for (const CompileEntry &Entry : Entries)
    if (llvm::is_contained(Changed, Entry.File))
      Selected.push_back(Entry);
  return Selected;
}

void summarize(const Report &R, llvm::raw_ostream &OS) {
  unsigned Counts[3] = {0, 0, 0};
  for (const Finding &F : R.Findings)
    ++Counts[static_cast<int>(F.Severity)];
  OS << "torchlint: " << R.Findings.size()
     << (R.Findings.size() == 1 ? " finding" : " findings") << " (" << Counts[2]
     << (Counts[2] == 1 ? " error, " : " errors, ") << Counts[1]
     << (Counts[1] == 1 ? " warning, " : " warnings, ") << Counts[0]
     << (Counts[0] == 1 ? " note" : " notes") << ") in " << R.TranslationUnits
     << (R.TranslationUnits == 1 ? " translation unit" : " translation units");
  size_t InPart = llvm::count_if(
      R.Failures, [](const AnalysisFailure &F) { return F.AnalyzedInPart; });
  if (R.Failures.size() > InPart)
    OS << ", " << R.Failures.size() - InPart << " not analyzed";
  if (InPart)
    OS << ", " << InPart << " analyzed in part";
  OS << '\n';
}

} // namespace

int main(int Argc, const char **Argv) {
  llvm::InitLLVM Init(Argc, Argv);
  llvm::CrashRecoveryContext::Enable();

  if (Argc > 1 && llvm::StringRef(Argv[1]) == "merge")
    return runMerge(Argc, Argv);
  if (Argc > 1 && llvm::StringRef(Argv[1]) == "lsp")
    return lsp::runLanguageServer(Argc, Argv);
  llvm::Expected<Options> Parsed = parseOptions(Argc, Argv);
  if (!Parsed)
    return fail(llvm::toString(Parsed.takeError()));
  const Options &O = *Parsed;
  if (O.Help) {
    llvm::outs() << usageText();
    return ExitClean;
  }
  if (O.Version) {
    llvm::outs() << "torchlint " << torchlintVersion() << '\n';
    return ExitClean;
  }

  llvm::Expected<std::vector<const RuleInfo *>> Enabled =
      enabledRules(O.Checks);
  if (!Enabled)
    return fail(llvm::toString(Enabled.takeError()));
  std::vector<const RuleInfo *> Rules = std::move(*Enabled);
  if (O.ListChecks) {
    writeRuleList(Rules, O.Format, llvm::outs());
    return ExitClean;
  }
  if (Rules.empty())
    return fail("no rule is enabled by --checks='" + O.Checks + "'");

  llvm::Expected<CompileDatabase> Database = loadCompileDatabase(O.Database);
  if (!Database)
    return fail(llvm::toString(Database.takeError()));
  llvm::Expected<std::vector<CompileEntry>> Entries =
      selectEntries(*Database, O.Sources);
  if (!Entries)
    return fail(llvm::toString(Entries.takeError()));

  std::optional<std::set<std::string>> Baseline;
  if (!O.Baseline.empty()) {
    llvm::Expected<std::set<std::string>> Known = readBaselineKeys(O.Baseline);
    if (!Known)
      return fail(llvm::toString(Known.takeError()));
    Baseline = std::move(*Known);
  }

  size_t Before = Entries->size();
  llvm::erase_if(*Entries, isCudaSource);
  if (Entries->size() != Before && !O.Quiet)
    llvm::errs() << "torchlint: note: skipping " << Before - Entries->size()
                 << " CUDA translation unit"
                 << (Before - Entries->size() == 1 ? "" : "s")
                 << " (.cu or nvcc): kernels are not libtorch host code\n";

  // Every shard analyzes the whole program, for the summaries its own units
  // are given, and reports its own units only: the findings of all shards
  // together are those of one run.
  std::optional<std::vector<CompileEntry>> ShardEntries;
  if (O.Part)
    ShardEntries = entriesOfShard(*Entries, *O.Part, sourceSize);

  // Rule options: the same CheckOptions the clang-tidy plugin reads.
  std::string ConfigFile =
      O.ConfigFile.empty() && !O.Hermetic
          ? findConfigFile(sourceRoot(O.SourceRoot, *Entries))
          : O.ConfigFile;
  llvm::Expected<RuleSetup> Setup = configureRules(Rules, ConfigFile);
  if (!Setup)
    return fail(llvm::toString(Setup.takeError()));
  std::vector<AnalysisFailure> OptionProblems = std::move(Setup->Problems);

  AnalyzerConfig Config;
  Config.Options = &Setup->Options;
  Config.FlowBudget = O.FlowBudget;
  Config.OptionsKey = Setup->OptionsKey;
  Config.ToolIdentity = toolIdentity();
  for (const RuleInfo *Info : Rules)
    Config.Rules.push_back(Info->Id);
  Config.HeaderFilter = O.HeaderFilter;
  Config.KeepSymlinks = O.Hermetic;
  Config.ResourceDir = findResourceDir(Argv[0]);
  if (Config.ResourceDir.empty())
    return fail("cannot find clang's builtin headers (stddef.h); install "
                "clang-19 or set TORCHLINT_RESOURCE_DIR");

  unsigned Jobs =
      O.Jobs ? O.Jobs : std::max(1u, std::thread::hardware_concurrency());
  std::optional<CacheDirectory> Cache;
  std::optional<ResultCache> StoredResults;
  std::optional<PrecompiledPrefixes> Prefixes;
  if (!O.NoCache) {
    llvm::SmallString<256> Dir(O.CacheDir);
    if (Dir.empty()) {
      Dir = llvm::sys::path::parent_path(Database->Path);
      llvm::sys::path::append(Dir, ".torchlint-cache");
    }
    llvm::sys::fs::make_absolute(Dir);
    if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
      return fail(Dir + ": cannot create the cache directory: " + EC.message() +
                  " (choose another with --cache-dir, or "
                  "--no-cache)");
    Cache.emplace(std::string(Dir), O.CacheMegabytes << 20);
    StoredResults.emplace(*Cache, ResultCache::InputChecks::OncePerRun);
    Config.Results = &*StoredResults;
    if (!O.NoPch) {
      Prefixes.emplace(*Cache, Jobs);
      Config.Prefixes = &*Prefixes;
      expectPrefixes(*Entries, Config);
    }
  }

  if (O.InternalUnit) {
    if (*O.InternalUnit >= Database->Entries.size())
      return fail("--internal-unit: no such entry in " + Database->Path);
    ImportedSummaries Imports;
    if (!O.InternalImports.empty()) {
      llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Text =
          llvm::MemoryBuffer::getFile(O.InternalImports);
      if (!Text)
        return fail(O.InternalImports + ": cannot read the summaries: " +
                    Text.getError().message());
      try {
        Imports = importedSummariesFromJson(
            nlohmann::json::parse((*Text)->getBuffer().str()));
      } catch (const nlohmann::json::exception &E) {
        return fail(O.InternalImports + ": invalid summaries: " + E.what());
      }
    }
    llvm::outs() << toJson(analyzeTranslationUnit(
                               Database->Entries[*O.InternalUnit], Config,
                               Imports))
                        .dump()
                 << '\n';
    return ExitClean;
  }

  ProgramUnitAnalyzer Analyze = [&](const CompileEntry &Entry,
                                    const ImportedSummaries &Imports,
                                    std::unique_ptr<ParsedUnit> *Keep) {
    return analyzeTranslationUnit(Entry, Config, Imports, Keep);
  };
  if (O.TimeoutSeconds) {
    std::vector<std::string> Child = {
        llvm::sys::fs::getMainExecutable(Argv[0],
                                         reinterpret_cast<void *>(&fail)),
        "--quiet", "-j", "1"};
    if (!O.Checks.empty())
      Child.push_back("--checks=" + O.Checks);
    if (!O.HeaderFilter.empty())
      Child.push_back("--header-filter=" + O.HeaderFilter);
    if (!ConfigFile.empty())
      Child.push_back("--config-file=" + ConfigFile);
    if (O.FlowBudget)
      Child.push_back("--flow-budget=" + std::to_string(O.FlowBudget));
    if (O.Hermetic) {
      Child.push_back("--hermetic");
    } else if (Cache) {
      Child.push_back("--cache-dir=" + Cache->root());
      Child.push_back("--cache-size=" + std::to_string(O.CacheMegabytes));
      if (O.NoPch)
        Child.push_back("--no-pch");
    } else {
      Child.push_back("--no-cache");
    }
    Child.push_back(Database->Path);
    // A child's AST cannot outlive the child: each round parses again.
    Analyze = [&, Child](const CompileEntry &Entry,
                         const ImportedSummaries &Imports,
                         std::unique_ptr<ParsedUnit> *) {
      size_t Index = llvm::find_if(Database->Entries,
                                   [&](const CompileEntry &E) {
                                     return sameEntry(E, Entry);
                                   }) -
                     Database->Entries.begin();
      std::vector<std::string> Command = Child;
      Command.insert(Command.begin() + 1,
                     "--internal-unit=" + std::to_string(Index));
      llvm::SmallString<128> ImportsFile;
      if (!Imports.empty()) {
        int FD;
        if (llvm::sys::fs::createTemporaryFile("torchlint-imports", "json", FD,
                                               ImportsFile)) {
          TranslationUnitResult Failed;
          Failed.File = Entry.File;
          Failed.Failure = Entry.File + ": error: cannot write a temporary "
                                        "file for the child torchlint";
          return Failed;
        }
        llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
        OS << toJson(Imports).dump();
        OS.close();
        Command.insert(Command.begin() + 1,
                       "--internal-imports=" + std::string(ImportsFile));
      }
      TranslationUnitResult Result =
          analyzeInChild(Entry, Command, O.TimeoutSeconds);
      if (!ImportsFile.empty())
        llvm::sys::fs::remove(ImportsFile);
      return Result;
    };
  }

  bool ShowProgress = !O.Quiet && llvm::sys::Process::StandardErrIsDisplayed();
  // With summaries, every shard analyzes the whole program (for what its own
  // units are told) and keeps its own units; without, only its own.
  unsigned Rounds = O.NoSummaries ? 1 : MaxRounds;
  uint64_t KeptMemory =
      O.SummaryMegabytes ? *O.SummaryMegabytes << 20 : defaultKeptMemory();
  const std::vector<CompileEntry> &Analyzed =
      ShardEntries && O.NoSummaries ? *ShardEntries : *Entries;
  ProgramRun Program = analyzeProgram(
      Analyzed, Analyze, Jobs,
      [&](size_t Done, size_t Total, const std::string &File) {
        if (ShowProgress)
          llvm::errs() << '[' << Done << '/' << Total << "] " << File << '\n';
      },
      Rounds, KeptMemory);
  std::vector<TranslationUnitResult> Results = std::move(Program.Results);
  if (size_t Again = Program.Analyses - Analyzed.size(); Again && !O.Quiet)
    llvm::errs() << "torchlint: note: the summary pass analyzed " << Again
                 << (Again == 1 ? " translation unit" : " translation units")
                 << " again with what the others tell, " << Program.Reparsed
                 << " of them with a new parse\n";
  if (ShardEntries && !O.NoSummaries) {
    auto InShard = [&](const CompileEntry &Entry) {
      return llvm::any_of(*ShardEntries, [&](const CompileEntry &E) {
        return sameEntry(E, Entry);
      });
    };
    std::vector<TranslationUnitResult> Mine;
    for (size_t I = 0; I < Entries->size(); ++I)
      if (InShard((*Entries)[I]))
        Mine.push_back(std::move(Results[I]));
    Results = std::move(Mine);
  }

  if (Cache) {
    Cache->trim();
    size_t Reused = llvm::count_if(
        Results, [](const TranslationUnitResult &U) { return U.FromCache; });
    if (Reused && !O.Quiet)
      llvm::errs() << "torchlint: note: " << Reused << " of " << Results.size()
                   << " translation units unchanged since an earlier run: "
                      "findings read from "
                   << Cache->root() << '\n';
  }

  SourceCache Sources;
  Report R = buildReport(std::move(Results), Rules, Sources);
  R.Warnings.insert(R.Warnings.begin(), OptionProblems.begin(),
                    OptionProblems.end());
  SarifOptions Sarif{sourceRoot(O.SourceRoot, *Entries), O.SarifCategory};
  Sarif.WriteRootUri = !O.Hermetic;
  // Only what the baseline does not know, on the lines asked for: the text,
  // the logs, the fixes and the exit status all follow what is shown.
  auto Hidden = [&](const Finding &F, SourceCache &Texts) {
    return !passesLineFilter(O.Lines, F.Where.File, F.Where.Begin.Line) ||
           (Baseline &&
            Baseline->count(resultKey(F, Texts, Sarif.SourceRoot)) > 0);
  };
  llvm::erase_if(R.Findings,
                 [&](const Finding &F) { return Hidden(F, Sources); });

  {
    std::error_code EC;
    std::unique_ptr<llvm::raw_fd_ostream> File;
    if (!O.OutputFile.empty()) {
      File = std::make_unique<llvm::raw_fd_ostream>(O.OutputFile, EC);
      if (EC)
        return fail(O.OutputFile + ": cannot write: " + EC.message());
    }
    llvm::raw_ostream &OS = File ? *File : llvm::outs();
    switch (O.Format) {
    case OutputFormat::Text:
      writeText(R, Sources, OS, useColor(O.Color, !File));
      break;
    case OutputFormat::Json:
      writeJson(R, OS);
      break;
    case OutputFormat::Sarif:
      writeSarif(R, Sources, Sarif, OS);
      break;
    }
    OS.flush();
    if (File && File->has_error()) {
      std::string Message = File->error().message();
      File->clear_error();
      return fail(O.OutputFile + ": cannot write: " + Message);
    }
  }

  if (!O.ExportSarif.empty()) {
    std::error_code EC;
    llvm::raw_fd_ostream File(O.ExportSarif, EC);
    if (EC)
      return fail(O.ExportSarif + ": cannot write: " + EC.message());
    writeSarif(R, Sources, Sarif, File);
  }

  for (const AnalysisFailure &Warning : R.Warnings)
    llvm::errs() << "torchlint: warning: " << Warning.File << ": "
                 << Warning.Message << '\n';
  for (const AnalysisFailure &Failure : R.Failures)
    llvm::errs() << "torchlint: error: " << Failure.File << " "
                 << consequence(Failure) << ": " << Failure.Message << '\n';

  if (O.Fix) {
    FixOutcome Outcome = applyFixes(R.Findings, Sources, R.Digests);
    std::set<std::string> ChangedFiles(Outcome.ChangedFiles.begin(),
                                       Outcome.ChangedFiles.end());
    unsigned Applied = Outcome.Applied;
    // One rule's fix can leave code that another rule improves (a batch moved
    // at its use is better created on the device): fixing goes on until
    // nothing is left to fix, so that a second --fix changes nothing.
    constexpr int MaxFixRounds = 4;
    for (int Round = 1;
         Round < MaxFixRounds && Outcome.Applied > 0 && Outcome.Refused.empty();
         ++Round) {
      std::vector<CompileEntry> Again =
          entriesToReanalyze(*Entries, Outcome.ChangedFiles);
      // The fixed units again, with what the whole program tells them.
      std::vector<TranslationUnitResult> Reanalyzed =
          analyzeProgram(Analyzed, Analyze, Jobs, nullptr, Rounds, KeptMemory)
              .Results;
      std::vector<TranslationUnitResult> OfFixed;
      for (size_t I = 0; I < Analyzed.size(); ++I)
        if (llvm::any_of(Again, [&](const CompileEntry &E) {
              return sameEntry(E, Analyzed[I]);
            }))
          OfFixed.push_back(std::move(Reanalyzed[I]));
      SourceCache Fixed;
      Report Next = buildReport(std::move(OfFixed), Rules, Fixed);
      if (!Next.Failures.empty()) {
        for (const AnalysisFailure &Failure : Next.Failures)
          llvm::errs() << "torchlint: error: after fixing, " << Failure.File
                       << " " << consequence(Failure) << ": " << Failure.Message
                       << '\n';
        break;
      }
      llvm::erase_if(Next.Findings,
                     [&](const Finding &F) { return Hidden(F, Fixed); });
      Outcome = applyFixes(Next.Findings, Fixed, Next.Digests);
      Applied += Outcome.Applied;
      ChangedFiles.insert(Outcome.ChangedFiles.begin(),
                          Outcome.ChangedFiles.end());
    }
    for (const std::string &Refused : Outcome.Refused)
      llvm::errs() << "torchlint: error: " << Refused << '\n';
    if (!O.Quiet)
      llvm::errs() << "torchlint: applied " << Applied
                   << (Applied == 1 ? " fix-it" : " fix-its") << " in "
                   << ChangedFiles.size()
                   << (ChangedFiles.size() == 1 ? " file\n" : " files\n");
  }
  if (!O.Quiet && O.Format == OutputFormat::Text)
    summarize(R, llvm::errs());

  if (!R.Failures.empty())
    return ExitError;
  for (const Finding &F : R.Findings)
    if (F.Severity >= O.FailOn)
      return ExitFindings;
  return ExitClean;
}
