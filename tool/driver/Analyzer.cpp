#include "driver/Analyzer.h"

#include "analysis/AnalysisContext.h"
#include "analysis/DebugRegions.h"
#include "analysis/DeviceFlow.h"
#include "cache/PrecompiledPrefix.h"
#include "cache/ResultCache.h"
#include "compile/ClangRun.h"
#include "compile/ForeignFlags.h"
#include "compile/UntrustedFlags.h"
#include "core/UserCode.h"
#include "driver/FixApplier.h"
#include "rules/RuleRegistry.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/DirectoryLookup.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorLexer.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <map>

using namespace clang;

#ifndef TORCHLINT_CLANG_RESOURCE_DIR
#define TORCHLINT_CLANG_RESOURCE_DIR ""
#endif

namespace torchlint {

namespace {

/// Keeps clang's first error, formatted like clang prints it.
class FirstErrorCollector : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error || !First.empty())
      return;
    llvm::SmallString<256> Message;
    Info.FormatDiagnostic(Message);
    std::string Where;
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      PresumedLoc Loc =
          Info.getSourceManager().getPresumedLoc(Info.getLocation());
      if (Loc.isValid())
        Where = std::string(Loc.getFilename()) + ":" +
                std::to_string(Loc.getLine()) + ":" +
                std::to_string(Loc.getColumn()) + ": ";
    }
    First = Where + "error: " + std::string(Message);
  }

  std::string First;
};

class CollectingSink : public FindingSink {
public:
  void consume(Finding F) override { Findings.push_back(std::move(F)); }
  void notice(const std::string &Message) override {
    Notices.push_back(Message);
  }
  std::vector<Finding> Findings;
  std::vector<std::string> Notices;
  /// The text each file with fix-its had when it was parsed.
  std::map<std::string, uint64_t> Digests;
  UnitSummary Summary;
  /// The rules ran over the unit's AST.
  bool Analyzed = false;
};

class TorchlintConsumer : public ASTConsumer {
public:
  TorchlintConsumer(const AnalyzerConfig &Config,
                    const ImportedSummaries &Imports, CollectingSink &Sink,
                    DiagnosticsEngine &Diags)
      : Config(Config), Imports(Imports),
        Code(Config.HeaderFilter, !Config.KeepSymlinks), Sink(Sink),
        Diags(Diags) {}

  bool HandleTopLevelDecl(DeclGroupRef Group) override {
    for (Decl *D : Group)
      if (Code.isAnalyzed(D->getLocation(),
                          D->getASTContext().getSourceManager()))
        TopLevel.push_back(D);
    return true;
  }

  // Bodies of functions outside the user's files are never analyzed, so they
  // are not parsed either: most of a libtorch TU's parse time goes there.
  bool shouldSkipFunctionBody(Decl *D) override {
    return !Code.isAnalyzed(D->getLocation(),
                            D->getASTContext().getSourceManager());
  }

  // A unit with compile errors is analyzed as far as clang recovered, as
  // clang-tidy does; the rules stay silent where it had to guess.
  void HandleTranslationUnit(ASTContext &Ctx) override {
    analyze(Ctx, Imports, Sink);
  }

  /// The rules over the unit's AST, told Imports of the other units; again
  /// for each round of the summary pass while the AST is kept.
  void analyze(ASTContext &Ctx, const ImportedSummaries &Imports,
               CollectingSink &Sink) {
    Ctx.setTraversalScope(TopLevel);
    AnalysisContext Context(Code, Sink, Config.Options);
    Context.useDebugRegions(&Debug);
    if (Config.FlowBudget)
      Context.setFlowBudget(Config.FlowBudget);
    Context.importSummaries(&Imports);
    ast_matchers::MatchFinder Finder;
    std::vector<std::unique_ptr<Rule>> Rules;
    for (const std::string &Id : Config.Rules)
      if (const RuleEntry *Entry = findRule(Id)) {
        Rules.push_back(Entry->Create(Context));
        Rules.back()->registerMatchers(&Finder);
      }
    Finder.matchAST(Ctx);
    Sink.Summary = Context.summarize(Ctx);
    recordDigests(Ctx.getSourceManager(), Sink);
    Sink.Analyzed = true;
  }

private:
  /// --fix refuses a file that no longer has the text its fix-its were
  /// computed on.
  static void recordDigests(SourceManager &SM, CollectingSink &Sink) {
    for (const Finding &F : Sink.Findings)
      for (const FixIt &X : F.FixIts) {
        if (Sink.Digests.count(X.File))
          continue;
        llvm::Expected<FileEntryRef> Entry =
            SM.getFileManager().getFileRef(X.File, /*OpenFile=*/false);
        if (!Entry) {
          llvm::consumeError(Entry.takeError());
          continue;
        }
        FileID ID = SM.translateFile(*Entry);
        if (ID.isValid())
          Sink.Digests[X.File] = textDigest(SM.getBufferData(ID));
      }
  }

public:
  /// Filled by the preprocessor during the parse.
  DebugRegions &debugRegions() { return Debug; }

private:
  const AnalyzerConfig &Config;
  const ImportedSummaries &Imports;
  UserCode Code;
  CollectingSink &Sink;
  DiagnosticsEngine &Diags;
  std::vector<Decl *> TopLevel;
  DebugRegions Debug;
};

/// Where each header that an #include could not find was looked for: the
/// includer's folder and every folder of the include search, joined with
/// the name. A header installed at one of them later changes the parse.
class MissingHeaderRecorder : public PPCallbacks {
public:
  MissingHeaderRecorder(Preprocessor &PP, std::vector<std::string> &Places)
      : PP(PP), Places(Places) {}

  bool FileNotFound(llvm::StringRef FileName) override {
    std::vector<std::string> Folders;
    if (PreprocessorLexer *Includer = PP.getCurrentFileLexer())
      if (OptionalFileEntryRef File = Includer->getFileEntry())
        Folders.push_back(std::string(File->getDir().getName()));
    for (const DirectoryLookup &Lookup :
         PP.getHeaderSearchInfo().search_dir_range())
      if (Lookup.isNormalDir())
        Folders.push_back(std::string(Lookup.getDirRef()->getName()));
    for (const std::string &Folder : Folders) {
      llvm::SmallString<256> Place(Folder);
      llvm::sys::path::append(Place, FileName);
      PP.getFileManager().makeAbsolutePath(Place);
      Places.push_back(std::string(Place));
    }
    return false;
  }

private:
  Preprocessor &PP;
  std::vector<std::string> &Places;
};

/// What one parse of a unit fills in. It outlives the parse when the unit
/// is kept, because the preprocessor's callbacks and the diagnostics engine
/// still point into it.
struct ParseState {
  CollectingSink Sink;
  FirstErrorCollector Errors;
  std::vector<std::string> MissingHeaderPlaces;
  /// Set by the action: the consumer that can analyze the AST again.
  TorchlintConsumer *Consumer = nullptr;
};

class TorchlintAction : public ASTFrontendAction {
public:
  /// KeepAST: after an analysis, leave the source file open (the AST alive)
  /// for the owner of the compiler to end.
  TorchlintAction(const AnalyzerConfig &Config,
                  const ImportedSummaries &Imports, ParseState &State,
                  bool KeepAST)
      : Config(Config), Imports(Imports), State(State), KeepAST(KeepAST) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    CI.getFrontendOpts().SkipFunctionBodies = true;
    // After a fatal error (a header not found) clang stops instantiating
    // templates, which leaves every libtorch call of the unit untyped; as an
    // error, the rest of the unit is analyzed as clangd shows it.
    CI.getDiagnostics().setFatalsAsError(true);
    auto Consumer = std::make_unique<TorchlintConsumer>(
        Config, Imports, State.Sink, CI.getDiagnostics());
    State.Consumer = Consumer.get();
    Preprocessor &PP = CI.getPreprocessor();
    PP.addPPCallbacks(Consumer->debugRegions().recorder(CI.getSourceManager(),
                                                        CI.getLangOpts()));
    PP.addPPCallbacks(
        std::make_unique<MissingHeaderRecorder>(PP, State.MissingHeaderPlaces));
    return Consumer;
  }

  // Once only: the owner's own call ends the file.
  void EndSourceFile() override {
    if (KeepAST && State.Sink.Analyzed) {
      KeepAST = false;
      return;
    }
    ASTFrontendAction::EndSourceFile();
  }

private:
  const AnalyzerConfig &Config;
  const ImportedSummaries &Imports;
  ParseState &State;
  bool KeepAST;
};

std::vector<std::string> adjustedArguments(const CompileEntry &Entry,
                                           const AnalyzerConfig &Config,
                                           std::vector<std::string> &Dropped) {
  SanitizedCommand Safe = dropUnsafeFlags(Entry.Arguments);
  Dropped = std::move(Safe.Dropped);
  tooling::CommandLineArguments Args = adaptForeignFlags(Safe.Arguments);
  Args = tooling::getClangStripOutputAdjuster()(Args, Entry.File);
  Args = tooling::getClangStripDependencyFileAdjuster()(Args, Entry.File);
  Args = tooling::getClangSyntaxOnlyAdjuster()(Args, Entry.File);
  bool HasResourceDir = false;
  for (const std::string &Arg : Args)
    if (llvm::StringRef(Arg).starts_with("-resource-dir"))
      HasResourceDir = true;
  std::vector<std::string> Extra;
  if (!HasResourceDir && !Config.ResourceDir.empty())
    Extra.push_back("-resource-dir=" + Config.ResourceDir);
  // Warnings are not torchlint's business, and gcc-only warning flags must not
  // stop the parse.
  Extra.push_back("-w");
  Extra.push_back("-Wno-unknown-warning-option");
  // Without carets clang does not print its own "1 error generated." line:
  // a unit that fails is one line of torchlint's.
  Extra.push_back("-fno-caret-diagnostics");
  // Past clang's default limit of errors the rest of the unit is not
  // analyzed as it should be.
  Extra.push_back("-ferror-limit=0");
  Args.insert(Args.begin() + 1, Extra.begin(), Extra.end());
  return Args;
}

/// Moves what the rules found (a sink's, or a parse's outcome's) into the
/// unit's result; their notices become its warnings.
template <typename Analysis>
void takeAnalysis(TranslationUnitResult &Result, Analysis &From) {
  Result.Findings = std::move(From.Findings);
  Result.Digests = std::move(From.Digests);
  Result.Warnings.insert(Result.Warnings.end(), From.Notices.begin(),
                         From.Notices.end());
  Result.Summary = std::move(From.Summary);
}

std::string crashedOn(const CompileEntry &Entry) {
  return Entry.File + ": error: torchlint crashed while analyzing this "
                      "translation unit (please report it with the file)";
}

/// A unit's AST kept after its parse, with what the parse left behind.
struct KeptParse {
  // The compiler points into the state: destroyed first.
  std::unique_ptr<ParseState> State;
  std::unique_ptr<KeptCompiler> Compiler;

  ~KeptParse() { Compiler.reset(); }
};

/// One parse of a unit with the given arguments.
struct ParseOutcome {
  std::optional<std::string> Failure;
  /// clang's first error, in a unit analyzed as far as clang recovered.
  std::optional<std::string> CompileError;
  std::vector<Finding> Findings;
  std::map<std::string, uint64_t> Digests;
  std::vector<std::string> Notices;
  UnitSummary Summary;
  /// Every file the parse opened, and each place a missing header was
  /// looked for, for the result cache; none without one, or when a file
  /// could not be stamped.
  std::optional<std::vector<FileStamp>> Inputs;
  /// Every file the parse opened.
  std::vector<std::string> Files;
  /// The AST, when asked for and the unit parsed without errors.
  std::unique_ptr<KeptParse> Kept;
};

ParseOutcome parseUnit(const CompileEntry &Entry,
                       std::vector<std::string> Arguments,
                       const AnalyzerConfig &Config,
                       const ImportedSummaries &Imports, bool KeepAST = false) {
  ParseOutcome Outcome;
  auto State = std::make_unique<ParseState>();
  ClangRun Run = runClang(
      Entry.Directory, std::move(Arguments),
      std::make_unique<TorchlintAction>(Config, Imports, *State, KeepAST),
      State->Errors);
  if (Run.DirectoryError) {
    Outcome.Failure = Entry.File + ": error: cannot enter directory " +
                      Entry.Directory + ": " + Run.DirectoryError.message();
    return Outcome;
  }
  // A crash while parsing or analyzing this unit (clang's or ours) becomes
  // this unit's failure; the other units are still analyzed.
  if (Run.Crashed) {
    Outcome.Failure = crashedOn(Entry);
    (void)State.release(); // the crashed compiler may still point into it
    return Outcome;
  }
  CollectingSink &Sink = State->Sink;
  FirstErrorCollector &Errors = State->Errors;
  bool HasErrors = !Run.Succeeded || Errors.getNumErrors() > 0;
  if (HasErrors) {
    std::string First = Errors.First.empty()
                            ? Entry.File + ": error: clang could not parse "
                                           "this translation unit"
                            : Errors.First;
    (Sink.Analyzed ? Outcome.CompileError : Outcome.Failure) = First;
  }
  if (Run.Files)
    Outcome.Files = filesOpened(*Run.Files);
  // A unit with errors is a result too, kept until a file it read changes
  // or a header it missed appears.
  if (Config.Results && Run.Files)
    if ((Outcome.Inputs = stampsOf(*Run.Files)) && HasErrors)
      for (const std::string &Place : State->MissingHeaderPlaces)
        if (!llvm::sys::fs::exists(Place))
          Outcome.Inputs->push_back(absentFile(Place));
  if (Outcome.Failure)
    return Outcome;
  Outcome.Findings = std::move(Sink.Findings);
  Outcome.Digests = std::move(Sink.Digests);
  Outcome.Notices = std::move(Sink.Notices);
  Outcome.Summary = std::move(Sink.Summary);
  if (Run.Kept && !HasErrors && State->Consumer) {
    Outcome.Kept = std::make_unique<KeptParse>();
    Outcome.Kept->Compiler = std::move(Run.Kept);
    Outcome.Kept->State = std::move(State);
  }
  return Outcome;
}

std::string joined(const std::vector<std::string> &Pieces) {
  std::string Text;
  for (const std::string &Piece : Pieces)
    Text += Piece + '\0';
  return Text;
}

/// The summaries the unit is given are inputs too: a unit whose callers in
/// other units changed what they pass is analyzed again.
std::string resultKey(const CompileEntry &Entry,
                      const std::vector<std::string> &Arguments,
                      const AnalyzerConfig &Config,
                      const ImportedSummaries &Imports) {
  return CacheDirectory::keyOf(
      {"result-5", Config.ToolIdentity, Entry.Directory, Entry.File,
       joined(Arguments), joined(Config.Rules), Config.HeaderFilter,
       Config.OptionsKey, std::to_string(Config.FlowBudget),
       toJson(Imports).dump()});
}

/// What the result cache keeps of an analysis (a CollectingSink, or a
/// ParseOutcome with the compile error clang recovered from).
template <typename Analysis>
CachedResult
cacheEntryOf(const Analysis &A,
             std::optional<std::string> CompileError = std::nullopt) {
  CachedResult Entry;
  Entry.CompileError = std::move(CompileError);
  Entry.Findings = A.Findings;
  Entry.Digests = A.Digests;
  Entry.Notices = A.Notices;
  Entry.Summary = A.Summary;
  return Entry;
}

/// A unit that could not be analyzed: its failure only.
CachedResult failureEntry(const std::string &Failure) {
  CachedResult Entry;
  Entry.Failure = Failure;
  return Entry;
}

/// Why Entry's source cannot be parsed at all, if it cannot.
std::optional<std::string> unreadableSource(const CompileEntry &Entry) {
  if (!llvm::sys::fs::exists(Entry.File))
    return Entry.File + ": error: source file does not exist";
  if (llvm::sys::fs::is_directory(Entry.File))
    return Entry.File + ": error: is a directory, not a source file";
  return std::nullopt;
}

/// Fills Result from the entry stored under Key, if it is valid; a problem
/// reading it becomes a warning.
bool takeCachedResult(const std::string &Key, const AnalyzerConfig &Config,
                      TranslationUnitResult &Result) {
  std::string Problem;
  std::optional<CachedResult> Cached = Config.Results->lookup(Key, Problem);
  if (!Problem.empty())
    Result.Warnings.push_back(Problem);
  if (!Cached)
    return false;
  Result.Failure = std::move(Cached->Failure);
  Result.CompileError = std::move(Cached->CompileError);
  Result.Findings = std::move(Cached->Findings);
  Result.Digests = std::move(Cached->Digests);
  Result.Warnings.insert(Result.Warnings.end(), Cached->Notices.begin(),
                         Cached->Notices.end());
  if (!Result.Failure)
    Result.Summary = std::move(Cached->Summary);
  Result.Inputs = std::move(Cached->Inputs);
  Result.FromCache = true;
  return true;
}

/// The libtorch include prefix of the main file, or else of the header it
/// starts by including, when that is found beside it (where a quoted
/// include is looked up first), and so on down a few such headers: a
/// project's units often include their own header first, and it libtorch.
std::string libtorchIncludePrefixOf(const std::string &MainFile,
                                    llvm::StringRef MainText) {
  std::string Prefix = libtorchIncludePrefix(MainText);
  std::string Includer = MainFile;
  std::unique_ptr<llvm::MemoryBuffer> Header;
  for (int Depth = 0; Prefix.empty() && Depth < 4; ++Depth) {
    std::string Name =
        firstQuotedInclude(Header ? Header->getBuffer() : MainText);
    if (Name.empty() || llvm::sys::path::is_absolute(Name))
      break;
    llvm::SmallString<256> Path(llvm::sys::path::parent_path(Includer));
    llvm::sys::path::append(Path, Name);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Read =
        llvm::MemoryBuffer::getFile(Path);
    if (!Read)
      break;
    Header = std::move(*Read);
    Includer = Path.str().str();
    Prefix = libtorchIncludePrefix(Header->getBuffer(), /*Header=*/true);
  }
  return Prefix;
}

/// The unit's libtorch include prefix, to precompile; none when it has none
/// or its command already injects code ahead of the main file.
std::optional<PrefixRequest>
prefixRequest(const CompileEntry &Entry,
              const std::vector<std::string> &Arguments,
              const AnalyzerConfig &Config) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Main =
      llvm::MemoryBuffer::getFile(Entry.File);
  if (!Main)
    return std::nullopt;
  PrefixRequest Request;
  Request.Text = libtorchIncludePrefixOf(Entry.File, (*Main)->getBuffer());
  if (Request.Text.empty())
    return std::nullopt;
  for (const std::string &Arg : Arguments) {
    llvm::StringRef A(Arg);
    if (A.starts_with("-include") || A.starts_with("--include") ||
        A.starts_with("-imacros") || A.starts_with("--imacros"))
      return std::nullopt;
    if (A == "-fsyntax-only" || A == "-c" ||
        absolutePath(Arg, Entry.Directory) == Entry.File)
      continue;
    Request.Arguments.push_back(Arg);
  }
  Request.Directory = Entry.Directory;
  Request.HeaderFilter = Config.HeaderFilter;
  describeConfiguration(Request, Config.ToolIdentity);
  return Request;
}

std::vector<std::string> withHeader(std::vector<std::string> Arguments,
                                    const PrecompiledHeader &Header) {
  Arguments.insert(Arguments.begin() + 1, {"-include-pch", Header.Path});
  return Arguments;
}

} // namespace

void expectPrefixes(const std::vector<CompileEntry> &Entries,
                    const AnalyzerConfig &Config) {
  if (!Config.Prefixes)
    return;
  for (const CompileEntry &Entry : Entries) {
    std::vector<std::string> Dropped;
    if (std::optional<PrefixRequest> Request = prefixRequest(
            Entry, adjustedArguments(Entry, Config, Dropped), Config))
      Config.Prefixes->expect(*Request);
  }
}

void preparePrefix(const CompileEntry &Entry, const AnalyzerConfig &Config) {
  if (!Config.Prefixes)
    return;
  std::vector<std::string> Dropped;
  if (std::optional<PrefixRequest> Request = prefixRequest(
          Entry, adjustedArguments(Entry, Config, Dropped), Config)) {
    std::string Problem;
    (void)Config.Prefixes->obtain(*Request, Problem, PrefixBuild::Always);
  }
}

struct ParsedUnit::Parts {
  CompileEntry Entry;
  const AnalyzerConfig *Config = nullptr;
  /// The arguments the unit was parsed with (without the prefix): part of
  /// each result's key.
  std::vector<std::string> Arguments;
  /// What the stored results depend on: the parse's files and the header's.
  std::optional<std::vector<FileStamp>> Stamps;
  /// The first result, less its findings, notices and summary.
  TranslationUnitResult Base;
  std::unique_ptr<KeptParse> Parse;
};

ParsedUnit::ParsedUnit(std::unique_ptr<Parts> Self) : Self(std::move(Self)) {}

ParsedUnit::~ParsedUnit() = default;

TranslationUnitResult
ParsedUnit::analyzeAgain(const ImportedSummaries &Imports) {
  TranslationUnitResult Result = Self->Base;
  CollectingSink Sink;
  llvm::CrashRecoveryContext Recovery;
  if (!Self->Parse || !Recovery.RunSafely([&] {
        CompilerInstance &Compiler = Self->Parse->Compiler->compiler();
        Self->Parse->State->Consumer->analyze(Compiler.getASTContext(), Imports,
                                              Sink);
      })) {
    Result.Failure = crashedOn(Self->Entry);
    // What a crash left is not freed, nor analyzed again.
    (void)Self->Parse.release();
    return Result;
  }
  const AnalyzerConfig &Config = *Self->Config;
  if (Config.Results && Self->Stamps)
    Config.Results->store(
        resultKey(Self->Entry, Self->Arguments, Config, Imports),
        cacheEntryOf(Sink), *Self->Stamps);
  takeAnalysis(Result, Sink);
  return Result;
}

TranslationUnitResult
analyzeTranslationUnit(const CompileEntry &Entry, const AnalyzerConfig &Config,
                       const ImportedSummaries &Imports,
                       std::unique_ptr<ParsedUnit> *Keep) {
  TranslationUnitResult Result;
  Result.File = Entry.File;
  if ((Result.Failure = unreadableSource(Entry)))
    return Result;

  std::vector<std::string> Dropped;
  std::vector<std::string> Arguments =
      adjustedArguments(Entry, Config, Dropped);
  if (!Dropped.empty()) {
    std::string Message = "dropped from the compile command: ";
    for (size_t I = 0; I < Dropped.size(); ++I)
      Message += (I ? ", " : "") + Dropped[I];
    Result.Warnings.push_back(std::move(Message));
  }

  std::string Key;
  if (Config.Results) {
    Key = resultKey(Entry, Arguments, Config, Imports);
    if (takeCachedResult(Key, Config, Result))
      return Result;
  }

  std::optional<PrecompiledHeader> Header;
  if (Config.Prefixes)
    if (std::optional<PrefixRequest> Request =
            prefixRequest(Entry, Arguments, Config)) {
      std::string Problem;
      Header = Config.Prefixes->obtain(*Request, Problem,
                                       Config.PrefixesBuiltElsewhere
                                           ? PrefixBuild::Never
                                           : PrefixBuild::IfShared);
      if (!Problem.empty())
        Result.Warnings.push_back(Problem);
    }
  ParseOutcome Outcome =
      Header ? parseUnit(Entry, withHeader(Arguments, *Header), Config, Imports,
                         Keep != nullptr)
             : parseUnit(Entry, Arguments, Config, Imports, Keep != nullptr);
  if (Header && (Outcome.Failure || Outcome.CompileError)) {
    // The unit's own error, or a header clang would not load: a plain parse
    // tells which.
    ParseOutcome Plain = parseUnit(Entry, Arguments, Config, Imports);
    if (!Plain.Failure && !Plain.CompileError) {
      Result.Warnings.push_back(
          "the precompiled header " + Header->Path + " could not be used (" +
          *(Outcome.Failure ? Outcome.Failure : Outcome.CompileError) +
          "); parsed without it");
      Config.Prefixes->discard(*Header);
      Header.reset();
    }
    Outcome = std::move(Plain);
  }
  if (Outcome.Failure) {
    if (Config.Results && Outcome.Inputs)
      Config.Results->store(Key, failureEntry(*Outcome.Failure),
                            *Outcome.Inputs);
    Result.Inputs = std::move(Outcome.Files);
    Result.Failure = std::move(Outcome.Failure);
    return Result;
  }
  if (Config.Results && Outcome.Inputs) {
    if (Header)
      Outcome.Inputs->insert(Outcome.Inputs->end(), Header->Inputs.begin(),
                             Header->Inputs.end());
    Config.Results->store(Key, cacheEntryOf(Outcome, Outcome.CompileError),
                          *Outcome.Inputs);
  }
  Result.Inputs = std::move(Outcome.Files);
  if (Keep && Outcome.Kept) {
    auto Parts = std::make_unique<ParsedUnit::Parts>();
    Parts->Entry = Entry;
    Parts->Config = &Config;
    Parts->Arguments = Arguments;
    Parts->Stamps = std::move(Outcome.Inputs);
    Parts->Base = Result;
    Parts->Parse = std::move(Outcome.Kept);
    *Keep = std::make_unique<ParsedUnit>(std::move(Parts));
  }
  Result.CompileError = std::move(Outcome.CompileError);
  takeAnalysis(Result, Outcome);
  return Result;
}

std::optional<TranslationUnitResult>
cachedTranslationUnit(const CompileEntry &Entry, const AnalyzerConfig &Config,
                      const ImportedSummaries &Imports) {
  TranslationUnitResult Result;
  Result.File = Entry.File;
  // Its failure needs no parse: analyzeTranslationUnit stores none.
  if ((Result.Failure = unreadableSource(Entry)))
    return Result;
  if (!Config.Results)
    return std::nullopt;
  std::vector<std::string> Dropped;
  if (!takeCachedResult(resultKey(Entry,
                                  adjustedArguments(Entry, Config, Dropped),
                                  Config, Imports),
                        Config, Result))
    return std::nullopt;
  return Result;
}

std::string findResourceDir(const char *Argv0) {
  auto HasBuiltins = [](const std::string &Dir) {
    if (Dir.empty())
      return false;
    llvm::SmallString<256> Probe(Dir);
    llvm::sys::path::append(Probe, "include", "stddef.h");
    return llvm::sys::fs::exists(Probe);
  };
  if (const char *Env = std::getenv("TORCHLINT_RESOURCE_DIR"))
    if (HasBuiltins(Env))
      return Env;
  const std::string Major = std::to_string(LLVM_VERSION_MAJOR);
  if (HasBuiltins(TORCHLINT_CLANG_RESOURCE_DIR))
    return TORCHLINT_CLANG_RESOURCE_DIR;
  // An installation that ships the headers beside the binary:
  // <prefix>/bin/torchlint and <prefix>/lib/clang/<major>.
  std::string Exe = llvm::sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&findResourceDir));
  if (!Exe.empty()) {
    llvm::SmallString<256> Dir(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(Exe)));
    llvm::sys::path::append(Dir, "lib", "clang", Major);
    if (HasBuiltins(std::string(Dir)))
      return std::string(Dir);
  }
  // Beside a clang of the same major version on PATH.
  for (std::string Name : {"clang-" + Major, std::string("clang")}) {
    llvm::ErrorOr<std::string> Clang = llvm::sys::findProgramByName(Name);
    llvm::SmallString<256> Real;
    if (!Clang || llvm::sys::fs::real_path(*Clang, Real))
      continue;
    llvm::SmallString<256> Dir(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(Real)));
    llvm::sys::path::append(Dir, "lib", "clang", Major);
    if (HasBuiltins(std::string(Dir)))
      return std::string(Dir);
  }
  return "";
}

} // namespace torchlint
