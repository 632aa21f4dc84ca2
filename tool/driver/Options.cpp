#include "driver/Options.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

namespace torchlint {

const char *usageText() {
  return R"(USAGE: torchlint [options] <compile_commands.json | build-dir> [source-file...]
       torchlint merge LOG.sarif... [--fail-on=LEVEL] [-o FILE]
       torchlint lsp [options]

Finds libtorch code that runs on the CPU, or starves its GPU, without saying so.
Source files select translation units of the compilation database; without
them every entry is analyzed. 'merge' combines the SARIF logs of shards into
one run, each result once. 'lsp' serves the findings to an editor as a
language server on stdin and stdout ('torchlint lsp --help').

OPTIONS:
  -j N                    analyze N translation units in parallel (default: one per core)
  --checks=GLOBS          enable or disable rules, as clang-tidy's --checks:
                          '-*,torch-device-*', applied after the default set
                          (every rule but those off by default); '*' enables all
  --list-checks           list the enabled rules and exit (with --format=json:
                          each rule's level, default, fix-its and summary)
  --format=text|json|sarif
                          output format (default: text)
  -o FILE                 write the output to FILE instead of standard output
  --fix                   apply the suggested fix-its in place
  --fail-on=note|warning|error
                          exit with 1 when a finding is at least this severe
                          (default: warning)
  --header-filter=REGEX   report findings in the project's headers matching REGEX
                          (default: every header that is not a system or libtorch one)
  --export-sarif=FILE     also write a SARIF 2.1.0 log to FILE, whatever --format is
  --source-root=DIR       SARIF locations are relative to DIR (%SRCROOT%); default:
                          the git work tree holding the sources, else the
                          current directory
  --sarif-category=ID     runs[0].automationDetails.id, to keep several uploads
                          of one commit apart
  --baseline=FILE         report only findings that are not in this SARIF log
                          (same rule, file and line fingerprint)
  --line-filter=JSON      report only findings on these lines, as clang-tidy's
                          --line-filter: '[{"name":"a.cpp","lines":[[1,3]]},
                          {"name":"b.h"}]' (a name matches the end of a path;
                          without lines, the whole file); every unit is still
                          analyzed, for what the others tell it
  --config-file=FILE      a .clang-tidy file whose CheckOptions configure the rules
                          (torch-<rule>.<Option>); default: the nearest
                          .clang-tidy above the sources
  --shard=K/N             analyze only the K-th of N parts of the translation
                          units (balanced by source size, the same on every
                          machine); merge the parts' SARIF with 'torchlint merge'
  --cache-dir=DIR         keep results and precompiled libtorch headers in DIR
                          (default: .torchlint-cache beside the compilation
                          database); a unit whose inputs are unchanged is not
                          parsed again
  --cache-size=MB         trim the cache to MB megabytes after a run (default: 2048)
  --no-cache              neither read nor write the cache: parse every unit
  --no-pch                do not precompile the libtorch includes
  --hermetic              read and write only what the command names (for a
                          build system's action): implies --no-cache and
                          --no-pch, reads a .clang-tidy only through
                          --config-file, takes --source-root (default: the
                          current directory, no git search) and writes no
                          absolute path of it, so that the same inputs give
                          the same bytes wherever they are
  --timeout=SECONDS       analyze each unit in a process of its own and give up
                          on one that takes longer: it is reported as not
                          analyzed and the run goes on
  --no-summaries          analyze each unit on its own, as the clang-tidy plugin
                          does: no finding needs what another unit tells
  --summary-memory=MB     keep parsed units in memory, while torchlint uses less
                          than MB megabytes, so that a unit the others tell more
                          is analyzed again without a new parse (default: a
                          quarter of the machine's memory; 0: parse it again)
  --flow-budget=N         let each flow analysis visit a block of a function N
                          times before it gives up on the function, with a
                          warning (default: 64)
  --color=auto|always|never
                          colour the text output (default: on a terminal)
  --quiet                 no progress or summary on standard error
  --version               print the version and exit
  --help                  print this help and exit

EXIT STATUS:
  0  no finding at or above --fail-on
  1  at least one finding at or above --fail-on
  2  usage error, unreadable or invalid compilation database, or a translation
     unit that could not be analyzed
)";
}

namespace {

llvm::Error usage(const llvm::Twine &Message) {
  return llvm::createStringError(std::errc::invalid_argument, "%s",
                                 Message.str().c_str());
}

} // namespace

llvm::Expected<Options> parseOptions(int Argc, const char *const *Argv) {
  Options O;
  bool OnlyPositional = false;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    if (OnlyPositional || !Arg.starts_with("-") || Arg == "-") {
      if (O.Database.empty())
        O.Database = Arg.str();
      else
        O.Sources.push_back(Arg.str());
      continue;
    }
    if (Arg == "--") {
      OnlyPositional = true;
      continue;
    }
    // --name=value or --name value; -jN or -j N; -oFILE or -o FILE.
    llvm::StringRef Name = Arg, Value;
    bool HasValue = false;
    if (Arg.starts_with("--")) {
      auto [Left, Right] = Arg.split('=');
      Name = Left;
      Value = Right;
      HasValue = Arg.contains('=');
    } else if (Arg.size() > 2 &&
               (Arg.starts_with("-j") || Arg.starts_with("-o"))) {
      Name = Arg.take_front(2);
      Value = Arg.drop_front(2);
      HasValue = true;
    }
    auto TakeValue = [&]() -> llvm::Expected<llvm::StringRef> {
      if (HasValue)
        return Value;
      if (I + 1 >= Argc)
        return usage("option '" + Name + "' needs a value");
      return llvm::StringRef(Argv[++I]);
    };
    auto NoValue = [&]() -> llvm::Error {
      if (HasValue)
        return usage("option '" + Name + "' takes no value");
      return llvm::Error::success();
    };

    if (Name == "--help" || Name == "-h") {
      if (llvm::Error E = NoValue())
        return std::move(E);
      O.Help = true;
    } else if (Name == "--version") {
      if (llvm::Error E = NoValue())
        return std::move(E);
      O.Version = true;
    } else if (Name == "-j" || Name == "--jobs") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      unsigned Jobs;
      if (V->getAsInteger(10, Jobs) || Jobs == 0 || Jobs > 1024)
        return usage("invalid job count '" + *V + "': expected 1 to 1024");
      O.Jobs = Jobs;
    } else if (Name == "--checks") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      O.Checks = V->str();
    } else if (Name == "--list-checks") {
      if (llvm::Error E = NoValue())
        return std::move(E);
      O.ListChecks = true;
    } else if (Name == "--format") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      if (*V == "text")
        O.Format = OutputFormat::Text;
      else if (*V == "json")
        O.Format = OutputFormat::Json;
      else if (*V == "sarif")
        O.Format = OutputFormat::Sarif;
      else
        return usage("invalid format '" + *V +
                     "': expected text, json or sarif");
    } else if (Name == "-o" || Name == "--output") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      if (V->empty())
        return usage("option '-o' needs a file name");
      O.OutputFile = V->str();
    } else if (Name == "--fix") {
      if (llvm::Error E = NoValue())
        return std::move(E);
      O.Fix = true;
    } else if (Name == "--fail-on") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      std::optional<Level> L = parseLevel(V->str());
      if (!L)
        return usage("invalid --fail-on level '" + *V +
                     "': expected note, warning or error");
      O.FailOn = *L;
    } else if (Name == "--no-cache" || Name == "--no-pch" ||
               Name == "--no-summaries" || Name == "--hermetic") {
      if (llvm::Error E = NoValue())
        return std::move(E);
      (Name == "--no-cache"       ? O.NoCache
       : Name == "--no-pch"       ? O.NoPch
       : Name == "--no-summaries" ? O.NoSummaries
                                  : O.Hermetic) = true;
    } else if (Name == "--timeout" || Name == "--internal-unit") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      unsigned Number;
      if (V->getAsInteger(10, Number) ||
          (Name == "--timeout" && (Number == 0 || Number > 86400)))
        return usage("invalid " + Name + " '" + *V +
                     "': expected a number of seconds from 1 to 86400");
      if (Name == "--timeout")
        O.TimeoutSeconds = Number;
      else
        O.InternalUnit = Number;
    } else if (Name == "--flow-budget") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      unsigned Number;
      if (V->getAsInteger(10, Number) || Number == 0 || Number > 100000)
        return usage("invalid --flow-budget '" + *V +
                     "': expected a number of visits from 1 to 100000");
      O.FlowBudget = Number;
    } else if (Name == "--summary-memory") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      uint64_t Megabytes;
      if (V->getAsInteger(10, Megabytes) || Megabytes > (uint64_t(1) << 30))
        return usage("invalid --summary-memory '" + *V +
                     "': expected a number of megabytes");
      O.SummaryMegabytes = Megabytes;
    } else if (Name == "--cache-size") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      uint64_t Megabytes;
      if (V->getAsInteger(10, Megabytes) || Megabytes == 0 ||
          Megabytes > (uint64_t(1) << 30))
        return usage("invalid --cache-size '" + *V +
                     "': expected a number of megabytes");
      O.CacheMegabytes = Megabytes;
    } else if (Name == "--export-sarif" || Name == "--source-root" ||
               Name == "--sarif-category" || Name == "--baseline" ||
               Name == "--config-file" || Name == "--cache-dir" ||
               Name == "--internal-imports") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      if (V->empty())
        return usage("option '" + Name + "' needs a value");
      std::string &Target = Name == "--export-sarif"       ? O.ExportSarif
                            : Name == "--source-root"      ? O.SourceRoot
                            : Name == "--sarif-category"   ? O.SarifCategory
                            : Name == "--config-file"      ? O.ConfigFile
                            : Name == "--cache-dir"        ? O.CacheDir
                            : Name == "--internal-imports" ? O.InternalImports
                                                           : O.Baseline;
      Target = V->str();
    } else if (Name == "--line-filter") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      llvm::Expected<LineFilter> Filter = parseLineFilter(*V);
      if (!Filter)
        return usage(llvm::toString(Filter.takeError()));
      O.Lines = std::move(*Filter);
    } else if (Name == "--shard") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      llvm::Expected<Shard> Part = parseShard(*V);
      if (!Part)
        return Part.takeError();
      O.Part = *Part;
    } else if (Name == "--color") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      if (*V == "auto")
        O.Color = ColorMode::Auto;
      else if (*V == "always")
        O.Color = ColorMode::Always;
      else if (*V == "never")
        O.Color = ColorMode::Never;
      else
        return usage("invalid --color '" + *V +
                     "': expected auto, always or never");
    } else if (Name == "--quiet" || Name == "-q") {
      if (llvm::Error E = NoValue())
        return std::move(E);
      O.Quiet = true;
    } else if (Name == "--header-filter") {
      llvm::Expected<llvm::StringRef> V = TakeValue();
      if (!V)
        return V.takeError();
      std::string Why;
      if (!llvm::Regex(*V).isValid(Why))
        return usage("invalid --header-filter '" + *V + "': " + Why);
      O.HeaderFilter = V->str();
    } else {
      return usage("unknown option '" + Arg + "' (see --help)");
    }
  }
  if (!O.Help && !O.Version && !O.ListChecks && O.Database.empty())
    return usage("no compilation database given (see --help)");
  if (O.Hermetic) {
    if (!O.CacheDir.empty())
      return usage("--hermetic keeps no cache: drop --cache-dir");
    O.NoCache = O.NoPch = true;
    if (O.SourceRoot.empty())
      O.SourceRoot = ".";
  }
  return O;
}

} // namespace torchlint
