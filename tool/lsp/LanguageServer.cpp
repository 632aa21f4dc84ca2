#include "LanguageServer.h"

#include "Diagnostics.h"
#include "Transport.h"
#include "cache/CacheDirectory.h"
#include "cache/PrecompiledPrefix.h"
#include "cache/ResultCache.h"
#include "compile/CompileDatabase.h"
#include "driver/Analyzer.h"
#include "driver/FixApplier.h"
#include "driver/ProgramRounds.h"
#include "driver/RuleSetup.h"
#include "output/Report.h"
#include "output/Writers.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace torchlint::lsp {

using nlohmann::json;

namespace {

// JSON-RPC and LSP error codes.
constexpr int ParseError = -32700;
constexpr int InvalidRequest = -32600;
constexpr int MethodNotFound = -32601;
constexpr int InvalidParams = -32602;
constexpr int ServerNotInitialized = -32002;

// window/logMessage types.
constexpr int LogError = 1;
constexpr int LogWarning = 2;
constexpr int LogInfo = 3;

/// One name per file: findings name files as clang's canonical names do
/// (symbolic links resolved), so documents and entries are named so too.
std::string canonicalPath(const std::string &Path) {
  std::string Absolute = absolutePath(Path, "/");
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Absolute, Real))
    return std::string(Real);
  return Absolute;
}

bool isInside(llvm::StringRef Path, llvm::StringRef Root) {
  Root.consume_back("/");
  return Path.starts_with(Root) &&
         (Path.size() == Root.size() || Path[Root.size()] == '/');
}

/// The nearest compile_commands.json above Path's folder, or in a build/
/// folder there, as clangd looks for it; empty if none.
std::string findDatabase(const std::string &Path) {
  for (llvm::StringRef Dir = llvm::sys::path::parent_path(Path); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    for (const char *Sub : {"", "build"}) {
      llvm::SmallString<256> Candidate(Dir);
      llvm::sys::path::append(Candidate, Sub, "compile_commands.json");
      if (llvm::sys::fs::is_regular_file(Candidate))
        return std::string(Candidate);
    }
  }
  return "";
}

/// A JSON-RPC notification: what the server tells the editor unasked.
json notification(const std::string &Method, json Params) {
  return {
      {"jsonrpc", "2.0"}, {"method", Method}, {"params", std::move(Params)}};
}

/// The params of window/logMessage and window/showMessage.
json messageParams(int Type, const std::string &Text) {
  return {{"type", Type}, {"message", "torchlint: " + Text}};
}

/// Unit Self with what the other units of its program tell, as far as
/// Cache holds valid results of them (analyzeUnitInProgram); on its own
/// without a cache.
UnitInProgram analyzeWithTheOthers(const std::vector<CompileEntry> &Entries,
                                   size_t Self, const AnalyzerConfig &Config,
                                   const CacheDirectory *Cache) {
  auto Analyze = [&](const CompileEntry &Entry,
                     const ImportedSummaries &Imports,
                     std::unique_ptr<ParsedUnit> *Keep) {
    return analyzeTranslationUnit(Entry, Config, Imports, Keep);
  };
  // The others' results list the same headers: each is looked at once.
  std::optional<ResultCache> Stamped;
  AnalyzerConfig Lookup = Config;
  if (Cache) {
    Stamped.emplace(*Cache, ResultCache::InputChecks::OncePerRun);
    Lookup.Results = &*Stamped;
  }
  return analyzeUnitInProgram(
      Entries, Self, Analyze,
      [&](const CompileEntry &Entry, const ImportedSummaries &Imports) {
        return cachedTranslationUnit(Entry, Lookup, Imports);
      });
}

} // namespace

struct LanguageServer::Project {
  CompileDatabase Database;
  /// The units the CLI's summary pass sees (the database less its CUDA
  /// sources, as the CLI sets them aside), and each entry's place among
  /// them (none for a CUDA source).
  std::vector<CompileEntry> Program;
  std::vector<std::optional<size_t>> InProgram;
  RuleSetup Setup;
  AnalyzerConfig Config;
  std::unique_ptr<CacheDirectory> Cache;
  std::unique_ptr<ResultCache> Results;
  std::unique_ptr<PrecompiledPrefixes> Prefixes;
  /// canonicalPath() of each entry's file.
  std::vector<std::string> Files;
};

LanguageServer::LanguageServer(ServerOptions Options, std::ostream &Out)
    : Options(std::move(Options)), Out(Out) {
  Worker = std::thread([this] { work(); });
  PrefixWorker = std::thread([this] { buildPrefixes(); });
}

LanguageServer::~LanguageServer() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
    Queue.clear();
    PrefixQueue.clear();
  }
  Wake.notify_all();
  Worker.join();
  PrefixWorker.join();
}

void LanguageServer::send(const json &Message) {
  // Text from source files need not be valid UTF-8; JSON must be.
  std::string Body =
      Message.dump(-1, ' ', false, json::error_handler_t::replace);
  std::lock_guard<std::mutex> Lock(OutMutex);
  writeFrame(Out, Body);
}

void LanguageServer::reply(const json &Id, json Result) {
  send({{"jsonrpc", "2.0"}, {"id", Id}, {"result", std::move(Result)}});
}

void LanguageServer::replyError(const json &Id, int Code,
                                const std::string &Message) {
  send({{"jsonrpc", "2.0"},
        {"id", Id},
        {"error", {{"code", Code}, {"message", Message}}}});
}

void LanguageServer::notify(const std::string &Method, json Params) {
  send(notification(Method, std::move(Params)));
}

void LanguageServer::log(int Type, const std::string &Message) {
  notify("window/logMessage", messageParams(Type, Message));
}

int LanguageServer::run(std::istream &In) {
  while (true) {
    Frame F = readFrame(In);
    if (F.What == Frame::End)
      break;
    if (F.What == Frame::Malformed) {
      handleMalformed(F.Problem);
      continue;
    }
    if (!handle(F.Body))
      break;
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  return ShutDown ? 0 : 1;
}

void LanguageServer::handleMalformed(const std::string &Problem) {
  replyError(nullptr, ParseError, "malformed message header: " + Problem);
}

bool LanguageServer::handle(const std::string &Body) {
  json Message = json::parse(Body, nullptr, /*allow_exceptions=*/false);
  if (Message.is_discarded()) {
    replyError(nullptr, ParseError, "the message is not valid JSON");
    return true;
  }
  json Id = nullptr;
  bool IsRequest = Message.is_object() && Message.contains("id");
  if (IsRequest) {
    Id = Message.at("id");
    if (!Id.is_string() && !Id.is_number_integer()) {
      replyError(nullptr, InvalidRequest, "the id must be a string or number");
      return true;
    }
  }
  if (!Message.is_object() || !Message.contains("method") ||
      !Message.at("method").is_string()) {
    // A response to a request of ours: none is ever sent, so nothing to do.
    if (Message.is_object() &&
        (Message.contains("result") || Message.contains("error")))
      return true;
    replyError(Id, InvalidRequest, "a request needs a method name");
    return true;
  }
  std::string Method = Message.at("method").get<std::string>();
  json Params = Message.value("params", json::object());

  if (Method == "exit")
    return false;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (!Initialized && Method != "initialize") {
      if (IsRequest)
        replyError(Id, ServerNotInitialized,
                   "the server is not initialized yet");
      return true;
    }
    if (ShutDown) {
      if (IsRequest)
        replyError(Id, InvalidRequest, "the server is shut down");
      return true;
    }
  }

  try {
    if (Method == "initialize") {
      if (!IsRequest)
        return true;
      bool Again;
      {
        std::lock_guard<std::mutex> Lock(Mutex);
        Again = Initialized;
      }
      if (Again)
        replyError(Id, InvalidRequest, "initialize was already received");
      else
        reply(Id, initialize(Params));
    } else if (Method == "shutdown") {
      {
        std::lock_guard<std::mutex> Lock(Mutex);
        ShutDown = true;
        Queue.clear();
      }
      if (IsRequest)
        reply(Id, nullptr);
    } else if (Method == "textDocument/didOpen") {
      didOpen(Params);
    } else if (Method == "textDocument/didChange") {
      didChange(Params);
    } else if (Method == "textDocument/didSave") {
      didSave(Params);
    } else if (Method == "textDocument/didClose") {
      didClose(Params);
    } else if (Method == "textDocument/codeAction") {
      if (IsRequest)
        reply(Id, codeAction(Params));
    } else if (IsRequest) {
      replyError(Id, MethodNotFound, "method not found: " + Method);
    }
    // Other notifications ($/cancelRequest, initialized, ...) need nothing.
  } catch (const json::exception &E) {
    if (IsRequest)
      replyError(Id, InvalidParams, "invalid params: " + std::string(E.what()));
    else
      log(LogError, "ignored " + Method + ": invalid params: " + E.what());
  }
  return true;
}

json LanguageServer::initialize(const json &Params) {
  // The encodings the client offers: LSP 3.17's general.positionEncodings,
  // or clangd's offsetEncoding (Neovim before 0.9 sends only that).
  // UTF-8 needs no conversion, so it is preferred where offered.
  std::vector<std::string> Offered;
  const json Capabilities = Params.value("capabilities", json::object());
  if (Capabilities.contains("general") &&
      Capabilities.at("general").contains("positionEncodings"))
    Offered = Capabilities.at("general")
                  .at("positionEncodings")
                  .get<std::vector<std::string>>();
  if (Capabilities.contains("offsetEncoding"))
    for (const std::string &Name :
         Capabilities.at("offsetEncoding").get<std::vector<std::string>>())
      Offered.push_back(Name);
  PositionEncoding Chosen = PositionEncoding::Utf16;
  if (llvm::is_contained(Offered, "utf-8"))
    Chosen = PositionEncoding::Utf8;
  else if (llvm::is_contained(Offered, "utf-32"))
    Chosen = PositionEncoding::Utf32;

  bool Versioned = false;
  if (Capabilities.contains("workspace") &&
      Capabilities.at("workspace").contains("workspaceEdit"))
    Versioned = Capabilities.at("workspace")
                    .at("workspaceEdit")
                    .value("documentChanges", false);

  std::vector<std::string> Roots;
  if (Params.contains("workspaceFolders") &&
      Params.at("workspaceFolders").is_array())
    for (const json &Folder : Params.at("workspaceFolders"))
      if (std::optional<std::string> Path =
              pathFromUri(Folder.at("uri").get<std::string>()))
        Roots.push_back(canonicalPath(*Path));
  if (Roots.empty() && Params.contains("rootUri") &&
      Params.at("rootUri").is_string())
    if (std::optional<std::string> Path =
            pathFromUri(Params.at("rootUri").get<std::string>()))
      Roots.push_back(canonicalPath(*Path));
  if (Roots.empty() && Params.contains("rootPath") &&
      Params.at("rootPath").is_string())
    Roots.push_back(canonicalPath(Params.at("rootPath").get<std::string>()));

  // initializationOptions take the place of the command line's options.
  if (Params.contains("initializationOptions") &&
      Params.at("initializationOptions").is_object()) {
    const json &Init = Params.at("initializationOptions");
    auto Take = [&](const char *Name, std::string &Into) {
      if (Init.contains(Name))
        Into = Init.at(Name).get<std::string>();
    };
    Take("compileCommandsDir", Options.CompileCommandsDir);
    Take("checks", Options.Checks);
    Take("configFile", Options.ConfigFile);
    Take("headerFilter", Options.HeaderFilter);
    Take("cacheDir", Options.CacheDir);
  }

  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Encoding = Chosen;
    VersionedEdits = Versioned;
    WorkspaceRoots = std::move(Roots);
    Initialized = true;
  }
  return {
      {"capabilities",
       {{"positionEncoding", encodingName(Chosen)},
        {"textDocumentSync",
         {{"openClose", true},
          // Whole texts: the server analyzes saved files only, and
          // needs the buffer only to know whether it still matches.
          {"change", 1},
          {"save", {{"includeText", false}}}}},
        {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}}}},
      {"serverInfo", {{"name", "torchlint"}, {"version", torchlintVersion()}}},
      {"offsetEncoding", encodingName(Chosen)}};
}

bool LanguageServer::inWorkspace(const std::string &Path) const {
  if (WorkspaceRoots.empty())
    return true;
  return llvm::any_of(WorkspaceRoots, [&](const std::string &Root) {
    return isInside(Path, Root);
  });
}

std::unique_ptr<LanguageServer::Project>
LanguageServer::loadProject(const std::string &DatabasePath,
                            std::string &Problem) {
  auto P = std::make_unique<Project>();
  llvm::Expected<CompileDatabase> Database = loadCompileDatabase(DatabasePath);
  if (!Database) {
    Problem = llvm::toString(Database.takeError());
    return nullptr;
  }
  P->Database = std::move(*Database);
  for (const CompileEntry &Entry : P->Database.Entries) {
    P->Files.push_back(canonicalPath(Entry.File));
    P->InProgram.emplace_back();
    if (!isCudaSource(Entry)) {
      P->InProgram.back() = P->Program.size();
      P->Program.push_back(Entry);
    }
  }
  llvm::Expected<std::vector<const RuleInfo *>> Rules =
      enabledRules(Options.Checks);
  if (!Rules) {
    Problem = llvm::toString(Rules.takeError());
    return nullptr;
  }
  if (Rules->empty()) {
    Problem = "no rule is enabled by checks '" + Options.Checks + "'";
    return nullptr;
  }
  std::string ConfigFile =
      Options.ConfigFile.empty()
          ? findConfigFile(sourceRoot("", P->Database.Entries))
          : Options.ConfigFile;
  llvm::Expected<RuleSetup> Setup = configureRules(*Rules, ConfigFile);
  if (!Setup) {
    Problem = llvm::toString(Setup.takeError());
    return nullptr;
  }
  P->Setup = std::move(*Setup);
  for (const AnalysisFailure &Option : P->Setup.Problems)
    log(LogWarning, Option.File + ": " + Option.Message);

  AnalyzerConfig &Config = P->Config;
  for (const RuleInfo *Info : P->Setup.Rules)
    Config.Rules.push_back(Info->Id);
  Config.Options = &P->Setup.Options;
  Config.OptionsKey = P->Setup.OptionsKey;
  Config.HeaderFilter = Options.HeaderFilter;
  Config.ResourceDir = Options.ResourceDir;
  Config.ToolIdentity = toolIdentity();
  if (!Options.NoCache) {
    llvm::SmallString<256> Dir(Options.CacheDir);
    if (Dir.empty()) {
      Dir = llvm::sys::path::parent_path(P->Database.Path);
      llvm::sys::path::append(Dir, ".torchlint-cache");
    }
    llvm::sys::fs::make_absolute(Dir);
    if (std::error_code EC = llvm::sys::fs::create_directories(Dir)) {
      log(LogWarning, std::string(Dir) + ": cannot create the cache " +
                          "directory (" + EC.message() +
                          "); every save parses its unit from scratch");
    } else {
      P->Cache = std::make_unique<CacheDirectory>(std::string(Dir),
                                                  uint64_t(2048) << 20);
      P->Results = std::make_unique<ResultCache>(*P->Cache);
      P->Prefixes = std::make_unique<PrecompiledPrefixes>(*P->Cache);
      Config.Results = P->Results.get();
      Config.Prefixes = P->Prefixes.get();
      // Built by buildPrefixes(), so that no save waits for one.
      Config.PrefixesBuiltElsewhere = true;
    }
  }
  return P;
}

LanguageServer::Project *LanguageServer::projectFor(const std::string &Path) {
  std::string DatabasePath;
  if (!Options.CompileCommandsDir.empty()) {
    llvm::SmallString<256> Candidate(
        absolutePath(Options.CompileCommandsDir,
                     WorkspaceRoots.empty() ? "/" : WorkspaceRoots.front()));
    llvm::sys::path::append(Candidate, "compile_commands.json");
    DatabasePath = std::string(Candidate);
  } else {
    DatabasePath = findDatabase(Path);
  }
  if (DatabasePath.empty()) {
    log(LogInfo, Path + ": no compile_commands.json above it (or in a "
                        "build/ folder there); not analyzed");
    return nullptr;
  }
  if (auto It = Projects.find(DatabasePath); It != Projects.end())
    return It->second.get();
  std::string Problem;
  std::unique_ptr<Project> Loaded = loadProject(DatabasePath, Problem);
  if (!Loaded) {
    if (ProjectProblemsSaid.insert(DatabasePath + Problem).second) {
      log(LogError, Problem);
      notify("window/showMessage", messageParams(LogError, Problem));
    }
    return nullptr;
  }
  return Projects.emplace(DatabasePath, std::move(Loaded)).first->second.get();
}

void LanguageServer::schedule(const std::string &Path, bool Opened) {
  Project *Owner = projectFor(Path);
  std::vector<UnitKey> Keys;
  if (Owner)
    for (size_t I = 0; I < Owner->Files.size(); ++I)
      if (Owner->Files[I] == Path)
        Keys.push_back({Owner, I});
  // A header: the units that read it when they were last analyzed.
  for (const auto &[Key, State] : Units)
    if (llvm::is_contained(State.Result.Inputs, Path) &&
        !llvm::is_contained(Keys, Key))
      Keys.push_back(Key);
  if (Keys.empty() && Owner && Opened)
    log(LogInfo, Path + ": not in " + Owner->Database.Path +
                     ", and no unit analyzed so far includes it; not "
                     "analyzed");
  for (UnitKey Key : Keys) {
    if (ShutDown)
      break;
    // The user's units go before the listeners queued for other units'
    // changes, which may each cost a parse.
    auto Queued = llvm::find(Queue, Key);
    if (Queued != Queue.end() && QueuedAsListeners.erase(Key)) {
      Queue.erase(Queued);
      Queued = Queue.end();
    }
    if (Queued == Queue.end())
      Queue.insert(llvm::find_if(Queue,
                                 [&](UnitKey Other) {
                                   return QueuedAsListeners.count(Other) != 0;
                                 }),
                   Key);
    // The unit's precompiled libtorch prefix is built beside the analysis,
    // which parses without it meanwhile; later saves find it ready. A save
    // asks again: an edit may have changed the prefix.
    if (Key.Owner->Prefixes && !llvm::is_contained(PrefixQueue, Key))
      PrefixQueue.push_back(Key);
  }
  Wake.notify_all();
}

void LanguageServer::scheduleListeners(
    UnitKey Analyzed, const std::vector<ImportedSummaries> &Given) {
  std::set<std::string> Open;
  for (const auto &[Uri, Doc] : Documents)
    Open.insert(Doc.Path);
  const Project &Owner = *Analyzed.Owner;
  for (const auto &[Key, State] : Units) {
    if (Key.Owner != Analyzed.Owner || Key == Analyzed || ShutDown ||
        !Owner.InProgram[Key.Index] || llvm::is_contained(Queue, Key))
      continue;
    bool Shown = Open.count(Owner.Files[Key.Index]) ||
                 llvm::any_of(State.Result.Findings, [&](const Finding &F) {
                   return Open.count(F.Where.File) != 0;
                 });
    if (!Shown || Given[*Owner.InProgram[Key.Index]] == State.Given)
      continue;
    // Its own analysis replays the same rounds, so it gets what this one
    // gave it, as far as the cache already holds the others' later rounds;
    // it queues no listeners itself, so a listener analyzed before another
    // listener's results reach the cache may keep what it knew: less than
    // the CLI, never other.
    Queue.push_back(Key);
    QueuedAsListeners.insert(Key);
  }
}

void LanguageServer::didOpen(const json &Params) {
  const json &Item = Params.at("textDocument");
  std::string Uri = Item.at("uri").get<std::string>();
  std::optional<std::string> Path = pathFromUri(Uri);
  if (!Path) {
    log(LogInfo, Uri + ": not a local file; not analyzed");
    return;
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  Document &Doc = Documents[Uri];
  Doc.Path = canonicalPath(*Path);
  Doc.Text = Item.at("text").get<std::string>();
  Doc.Version = Item.value("version", int64_t(0));
  if (!inWorkspace(Doc.Path)) {
    log(LogInfo, Doc.Path + ": outside the workspace; not analyzed");
    return;
  }
  schedule(Doc.Path, /*Opened=*/true);
}

void LanguageServer::didChange(const json &Params) {
  std::string Uri = Params.at("textDocument").at("uri").get<std::string>();
  const json &Changes = Params.at("contentChanges");
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Documents.find(Uri);
  if (It == Documents.end() || !Changes.is_array() || Changes.empty())
    return;
  // Full synchronization was asked for: the last change is the whole text.
  It->second.Text = Changes.back().at("text").get<std::string>();
  It->second.Version =
      Params.at("textDocument").value("version", It->second.Version);
}

void LanguageServer::didSave(const json &Params) {
  std::string Uri = Params.at("textDocument").at("uri").get<std::string>();
  std::optional<std::string> Path = pathFromUri(Uri);
  if (!Path)
    return;
  std::string File = canonicalPath(*Path);
  std::lock_guard<std::mutex> Lock(Mutex);
  if (!inWorkspace(File))
    return;
  schedule(File, /*Opened=*/false);
}

void LanguageServer::didClose(const json &Params) {
  std::string Uri = Params.at("textDocument").at("uri").get<std::string>();
  std::lock_guard<std::mutex> Lock(Mutex);
  Documents.erase(Uri);
  // As clangd does, a closed file shows no diagnostics. The worker says so:
  // it alone publishes, so no list it computed before the close can arrive
  // after the empty one.
  PublishPending = true;
  Wake.notify_all();
}

void LanguageServer::waitIdle() {
  std::unique_lock<std::mutex> Lock(Mutex);
  Idle.wait(Lock, [&] { return Queue.empty() && !PublishPending && !Running; });
}

void LanguageServer::buildPrefixes() {
  std::unique_lock<std::mutex> Lock(Mutex);
  while (true) {
    Wake.wait(Lock, [&] { return Stopping || !PrefixQueue.empty(); });
    if (Stopping)
      return;
    UnitKey Key = PrefixQueue.front();
    PrefixQueue.pop_front();
    const CompileEntry Entry = Key.Owner->Database.Entries[Key.Index];
    const AnalyzerConfig &Config = Key.Owner->Config;
    Lock.unlock();
    preparePrefix(Entry, Config);
    Lock.lock();
  }
}

void LanguageServer::work() {
  std::unique_lock<std::mutex> Lock(Mutex);
  while (true) {
    Wake.wait(Lock,
              [&] { return Stopping || !Queue.empty() || PublishPending; });
    if (Stopping)
      return;
    Running = true;
    PublishPending = false;
    std::vector<json> Messages;
    Project *Analyzed = nullptr;
    std::string AnalyzedFile;
    if (!Queue.empty()) {
      UnitKey Key = Queue.front();
      Queue.pop_front();
      Analyzed = Key.Owner;
      AnalyzedFile = Key.Owner->Files[Key.Index];
      const Project &Owner = *Key.Owner;
      const CompileEntry &Entry = Owner.Database.Entries[Key.Index];
      // A CUDA source is not part of the program: it is analyzed on its own.
      std::vector<CompileEntry> Separate;
      if (!Owner.InProgram[Key.Index])
        Separate.push_back(Entry);
      const std::vector<CompileEntry> &Program =
          Separate.empty() ? Owner.Program : Separate;
      size_t Self = Separate.empty() ? *Owner.InProgram[Key.Index] : 0;
      bool TellListeners = QueuedAsListeners.erase(Key) == 0;
      Lock.unlock();
      // A save that comes while this runs queues the unit again: its result
      // is then published after this one's.
      UnitInProgram Analysis =
          analyzeWithTheOthers(Program, Self, Owner.Config, Owner.Cache.get());
      for (std::string &Input : Analysis.Result.Inputs)
        Input = canonicalPath(Input);
      Lock.lock();
      UnitState &State = Units[Key];
      State.Result = std::move(Analysis.Result);
      State.Given = Analysis.Given[Self];
      Messages = unitMessages(Entry.File, State);
      if (Analysis.Unknown == 0) {
        AloneSaid.erase(Key.Owner);
        if (TellListeners && Separate.empty())
          scheduleListeners(Key, Analysis.Given);
      } else if (AloneSaid.insert(Key.Owner).second) {
        std::string Why =
            Owner.Cache
                ? std::to_string(Analysis.Unknown) + " of the " +
                      std::to_string(Program.size() - 1) + " other units (" +
                      Analysis.FirstUnknown +
                      (Analysis.Unknown > 1 ? " among them) have" : ") has") +
                      " no up-to-date result in the cache"
                : "there is no result cache";
        Messages.push_back(notification(
            "window/logMessage",
            messageParams(LogInfo,
                          Owner.Database.Path + ": " + Why +
                              ", so each unit is analyzed on its own, "
                              "without what the others tell it (a device "
                              "passed from another file)" +
                              (Owner.Cache ? "; a CLI run over the database "
                                             "(torchlint " +
                                                 Owner.Database.Path +
                                                 ") lets the server see them"
                                           : ""))));
      }
    }
    // What to publish is worked out from a copy, without the lock: reading
    // the files and the cache's trim must not hold up the editor's requests.
    Publication Next = snapshot();
    if (Analyzed)
      Next.Analyzed = AnalyzedFile;
    Lock.unlock();
    if (Analyzed && Analyzed->Cache)
      Analyzed->Cache->trim();
    computePublication(Next);
    Lock.lock();
    Current = std::move(Next.Findings);
    CurrentDigests = std::move(Next.Digests);
    Sent = std::move(Next.Sent);
    Lock.unlock();
    for (const json &Message : Messages)
      send(Message);
    for (const json &Message : Next.Messages)
      send(Message);
    Lock.lock();
    Running = false;
    if (Queue.empty() && !PublishPending)
      Idle.notify_all();
  }
}

std::vector<json> LanguageServer::unitMessages(const std::string &File,
                                               UnitState &State) {
  auto Log = [](int Type, const std::string &Text) {
    return notification("window/logMessage", messageParams(Type, Text));
  };
  std::vector<json> Messages;
  AnalysisFailure Said{File, "", false};
  if (State.Result.Failure) {
    Said.Message = *State.Result.Failure;
  } else if (State.Result.CompileError) {
    Said.Message = *State.Result.CompileError;
    Said.AnalyzedInPart = true;
  }
  std::string Failure;
  if (!Said.Message.empty())
    Failure = File + " " + consequence(Said) + ": " + Said.Message;
  if (Failure != State.FailureSaid) {
    State.FailureSaid = Failure;
    if (!Failure.empty()) {
      Messages.push_back(Log(LogWarning, Failure));
      if (State.Result.Failure)
        Messages.push_back(notification("window/showMessage",
                                        messageParams(LogWarning, Failure)));
    }
  }
  for (const std::string &Warning : State.Result.Warnings)
    Messages.push_back(Log(LogInfo, File + ": " + Warning));
  return Messages;
}

LanguageServer::Publication LanguageServer::snapshot() const {
  Publication P;
  for (const auto &[Key, State] : Units)
    P.Results.push_back(State.Result);
  for (const auto &[Uri, Doc] : Documents)
    P.Open[Doc.Path] = Uri;
  P.Sent = Sent;
  P.Encoding = Encoding;
  return P;
}

void LanguageServer::computePublication(Publication &P) {
  // A unit that has not been analyzed again since a file it shares with
  // another changed (a header saved, the other unit done first) holds
  // fix-its for the old text: they are withheld until it is.
  SourceCache Sources;
  for (TranslationUnitResult &Unit : P.Results)
    for (Finding &F : Unit.Findings)
      for (const FixIt &Fix : F.FixIts) {
        auto Digest = Unit.Digests.find(Fix.File);
        const std::string *Text = Sources.text(Fix.File);
        if (Digest == Unit.Digests.end() || !Text ||
            Digest->second != textDigest(*Text)) {
          F.FixIts.clear();
          break;
        }
        P.Digests[Fix.File] = Digest->second;
      }
  Report R = buildReport(std::move(P.Results), {}, Sources);
  for (Finding &F : R.Findings)
    P.Findings[F.Where.File].push_back(std::move(F));

  // The analyzed unit's main file always gets its list, even an empty one,
  // so that the editor knows the save was seen; other open files get one
  // when theirs changed; a file closed since a non-empty list gets an
  // empty one.
  std::set<std::string> Files;
  for (const auto &[Path, Diagnostics] : P.Sent)
    Files.insert(Path);
  for (const auto &[Path, Uri] : P.Open)
    Files.insert(Path);
  std::map<std::string, json> Sent;
  for (const std::string &File : Files) {
    json Diagnostics = json::array();
    auto Open = P.Open.find(File);
    auto Found = P.Findings.find(File);
    if (Open != P.Open.end() && Found != P.Findings.end()) {
      const std::string *Text = Sources.text(File);
      TextPositions Positions(Text ? *Text : "", P.Encoding);
      for (const Finding &F : Found->second)
        Diagnostics.push_back(toDiagnostic(F, Positions));
    }
    auto Before = P.Sent.find(File);
    bool Changed = Before == P.Sent.end() ? !Diagnostics.empty()
                                          : Before->second != Diagnostics;
    bool Send = Changed || File == P.Analyzed;
    if (Open != P.Open.end() && (Send || Before != P.Sent.end()))
      Sent[File] = Diagnostics;
    if (!Send)
      continue;
    std::string Uri = Open != P.Open.end() ? Open->second : uriFromPath(File);
    P.Messages.push_back(
        notification("textDocument/publishDiagnostics",
                     {{"uri", Uri}, {"diagnostics", std::move(Diagnostics)}}));
  }
  P.Sent = std::move(Sent);
}

json LanguageServer::codeAction(const json &Params) {
  std::string Uri = Params.at("textDocument").at("uri").get<std::string>();
  const json &Wanted = Params.at("range");
  json Actions = json::array();
  std::lock_guard<std::mutex> Lock(Mutex);
  auto Doc = Documents.find(Uri);
  if (Doc == Documents.end())
    return Actions;
  const std::string &Path = Doc->second.Path;
  auto Found = Current.find(Path);
  if (Found == Current.end())
    return Actions;
  // Fix-its are offsets into the text that was analyzed: none is offered
  // for a buffer that changed since (it is offered again after the save).
  auto Analyzed = CurrentDigests.find(Path);
  if (Analyzed == CurrentDigests.end() ||
      Analyzed->second != textDigest(Doc->second.Text))
    return Actions;
  TextPositions Positions(Doc->second.Text, Encoding);
  for (const Finding &F : Found->second) {
    if (F.FixIts.empty())
      continue;
    json D = toDiagnostic(F, Positions);
    if (!rangesIntersect(D.at("range"), Wanted))
      continue;
    std::map<std::string, std::vector<FixIt>> ByFile;
    for (const FixIt &Fix : F.FixIts)
      ByFile[Fix.File].push_back(Fix);
    json Changes = json::object();
    json DocumentChanges = json::array();
    bool Usable = true;
    for (auto &[File, Fixes] : ByFile) {
      // The edit applies to the buffer where the file is open.
      std::optional<std::string> Text;
      std::string FileUri = uriFromPath(File);
      json Version = nullptr;
      for (const auto &[OpenUri, Open] : Documents)
        if (Open.Path == File) {
          Text = Open.Text;
          FileUri = OpenUri;
          Version = Open.Version;
        }
      if (!Text)
        Text = fileText(File);
      auto Digest = CurrentDigests.find(File);
      if (!Text || Digest == CurrentDigests.end() ||
          Digest->second != textDigest(*Text) || !normalizeFixes(Fixes)) {
        Usable = false;
        break;
      }
      matchLineBreaks(*Text, Fixes);
      TextPositions In(*Text, Encoding);
      json Edits = json::array();
      for (const FixIt &Fix : Fixes)
        Edits.push_back(
            {{"range", In.range(Fix.Offset, Fix.Offset + Fix.Length)},
             {"newText", Fix.Replacement}});
      DocumentChanges.push_back(
          {{"textDocument", {{"uri", FileUri}, {"version", Version}}},
           {"edits", Edits}});
      Changes[FileUri] = std::move(Edits);
    }
    if (!Usable)
      continue;
    json Edit = VersionedEdits ? json{{"documentChanges", DocumentChanges}}
                               : json{{"changes", Changes}};
    Actions.push_back({{"title", codeActionTitle(F)},
                       {"kind", "quickfix"},
                       {"diagnostics", {D}},
                       {"isPreferred", true},
                       {"edit", std::move(Edit)}});
  }
  return Actions;
}

} // namespace torchlint::lsp
