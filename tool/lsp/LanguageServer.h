//===--- LanguageServer.h - torchlint lsp: findings in the editor -*- C++
//-*-===//
//
// A Language Server Protocol server on stdio that runs beside the user's
// clangd: it publishes the CLI's findings for the files the editor opens and
// saves, and offers each fix-it as a quick fix. It is a shell over the same
// analyzer as the CLI (the same rules, options, result cache and
// precompiled libtorch prefix); only saved files are analyzed.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_LSP_LANGUAGESERVER_H
#define TORCHLINT_TOOL_LSP_LANGUAGESERVER_H

#include "Positions.h"
#include "core/Finding.h"
#include "driver/Analyzer.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <istream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace torchlint::lsp {

struct ServerOptions {
  /// --compile-commands-dir: where compile_commands.json is, for every file;
  /// empty: the nearest one above each file (or in a build/ folder there).
  std::string CompileCommandsDir;
  /// Appended to the default rule set, as the CLI's --checks.
  std::string Checks;
  /// A .clang-tidy whose CheckOptions configure the rules; empty: the
  /// nearest one above the sources, as the CLI finds it.
  std::string ConfigFile;
  std::string HeaderFilter;
  /// Where results and precompiled headers are kept; empty: beside each
  /// compilation database, as the CLI keeps them.
  std::string CacheDir;
  bool NoCache = false;
  /// Clang's builtin headers.
  std::string ResourceDir;
};

class LanguageServer {
public:
  LanguageServer(ServerOptions Options, std::ostream &Out);
  ~LanguageServer();
  LanguageServer(const LanguageServer &) = delete;
  LanguageServer &operator=(const LanguageServer &) = delete;

  /// Reads and answers messages until `exit` or the end of In; the process
  /// exit status the protocol asks for (0 after `shutdown`, else 1).
  int run(std::istream &In);

  /// Handles one message body; false once `exit` was received.
  bool handle(const std::string &Body);
  /// Answers a frame whose headers could not be read.
  void handleMalformed(const std::string &Problem);

  /// Blocks until no analysis is queued or running (for tests and benches).
  void waitIdle();

private:
  struct Project;
  struct Document {
    std::string Path;
    std::string Text;
    int64_t Version = 0;
  };
  struct UnitKey {
    Project *Owner;
    size_t Index;
    bool operator<(const UnitKey &O) const {
      return std::tie(Owner, Index) < std::tie(O.Owner, O.Index);
    }
    bool operator==(const UnitKey &O) const {
      return Owner == O.Owner && Index == O.Index;
    }
  };
  struct UnitState {
    TranslationUnitResult Result;
    /// What the other units told it in its last analysis.
    ImportedSummaries Given;
    /// The failure last told to the user, so that it is told once.
    std::string FailureSaid;
  };

  void send(const nlohmann::json &Message);
  void reply(const nlohmann::json &Id, nlohmann::json Result);
  void replyError(const nlohmann::json &Id, int Code,
                  const std::string &Message);
  void notify(const std::string &Method, nlohmann::json Params);
  void log(int Type, const std::string &Message);

  nlohmann::json initialize(const nlohmann::json &Params);
  void didOpen(const nlohmann::json &Params);
  void didChange(const nlohmann::json &Params);
  void didSave(const nlohmann::json &Params);
  void didClose(const nlohmann::json &Params);
  nlohmann::json codeAction(const nlohmann::json &Params);

  bool inWorkspace(const std::string &Path) const;
  /// The project whose database covers Path, loading it on first use; null
  /// (with the reason logged once) when there is none.
  Project *projectFor(const std::string &Path);
  std::unique_ptr<Project> loadProject(const std::string &DatabasePath,
                                       std::string &Problem);
  /// Queues the units to analyze after Path was opened or saved, and the
  /// building of their precompiled prefixes.
  void schedule(const std::string &Path, bool Opened);
  /// After Analyzed's analysis, which gave each unit of its program these
  /// imports: queues the units shown in the editor that were last analyzed
  /// with others (a caller in Analyzed passes another device now).
  void scheduleListeners(UnitKey Analyzed,
                         const std::vector<ImportedSummaries> &Given);
  /// The analyzing thread: one unit at a time, then what to publish. It
  /// alone publishes diagnostics, so they arrive in the order made.
  void work();
  /// The thread that builds precompiled prefixes, one at a time.
  void buildPrefixes();

  /// What the worker publishes after an analysis: worked out from a copy
  /// of the state, without holding the lock.
  struct Publication {
    std::vector<TranslationUnitResult> Results;
    /// Open documents: canonical path to the URI the editor named.
    std::map<std::string, std::string> Open;
    /// The last list sent for each file; made the new one.
    std::map<std::string, nlohmann::json> Sent;
    /// The main file of the unit just analyzed, if any.
    std::string Analyzed;
    PositionEncoding Encoding = PositionEncoding::Utf16;
    // Made by computePublication:
    std::map<std::string, std::vector<Finding>> Findings;
    std::map<std::string, uint64_t> Digests;
    std::vector<nlohmann::json> Messages;
  };
  Publication snapshot() const;
  static void computePublication(Publication &P);
  /// The log lines of an analysis: a failure once, until it changes.
  static std::vector<nlohmann::json> unitMessages(const std::string &File,
                                                  UnitState &State);

  ServerOptions Options;
  std::ostream &Out;
  std::mutex OutMutex;

  std::mutex Mutex;
  std::condition_variable Wake;
  std::condition_variable Idle;
  bool Initialized = false;
  bool ShutDown = false;
  bool Stopping = false;
  bool Running = false;
  bool PublishPending = false;
  PositionEncoding Encoding = PositionEncoding::Utf16;
  bool VersionedEdits = false;
  std::vector<std::string> WorkspaceRoots;
  std::map<std::string, std::unique_ptr<Project>> Projects;
  std::set<std::string> ProjectProblemsSaid;
  std::map<std::string, Document> Documents;
  std::map<UnitKey, UnitState> Units;
  std::deque<UnitKey> Queue;
  /// Queued by scheduleListeners, not by the user: their analyses queue no
  /// listeners in turn, so that units that keep changing what they tell
  /// each other do not analyze each other forever.
  std::set<UnitKey> QueuedAsListeners;
  /// The projects whose units were analyzed on their own, said once.
  std::set<Project *> AloneSaid;
  std::deque<UnitKey> PrefixQueue;
  /// The last list of diagnostics sent for each file still shown.
  std::map<std::string, nlohmann::json> Sent;
  /// The findings last published, by file, and the digest of each file's
  /// text they were made on, for code actions.
  std::map<std::string, std::vector<Finding>> Current;
  std::map<std::string, uint64_t> CurrentDigests;
  std::thread Worker;
  std::thread PrefixWorker;
};

/// `torchlint lsp [options]`: serves on stdin and stdout.
int runLanguageServer(int Argc, const char **Argv);

} // namespace torchlint::lsp

#endif // TORCHLINT_TOOL_LSP_LANGUAGESERVER_H
