//===--- ServerMain.cpp - `torchlint lsp`: the command line ---------------===//

#include "LanguageServer.h"
#include "driver/Analyzer.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <iostream>

namespace torchlint::lsp {

namespace {

const char *ServerUsage =
    R"(usage: torchlint lsp [options]

Serves torchlint's findings to an editor over the Language Server Protocol
on stdin and stdout, beside clangd. Files are analyzed when they are opened
and saved; unsaved changes are not analyzed.

  --compile-commands-dir=DIR  the folder of compile_commands.json (default:
                              the nearest one above each file, or in a
                              build/ folder there)
  --checks=GLOB               rules to enable or disable, as the CLI's
  --config-file=FILE          .clang-tidy with the rules' CheckOptions
                              (default: the nearest above the sources)
  --header-filter=REGEX       which of your headers are reported
  --cache-dir=DIR             results and precompiled headers (default:
                              .torchlint-cache beside the database)
  --no-cache                  parse every unit at every save

initializationOptions may set compileCommandsDir, checks, configFile,
headerFilter and cacheDir instead.
)";

} // namespace

int runLanguageServer(int Argc, const char **Argv) {
  ServerOptions Options;
  for (int I = 2; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    auto Value = [&](llvm::StringRef Name, std::string &Into) {
      if (!Arg.consume_front(Name))
        return false;
      Into = Arg.str();
      return true;
    };
    if (Arg == "--help" || Arg == "-h") {
      llvm::outs() << ServerUsage;
      return 0;
    }
    if (Arg == "--no-cache") {
      Options.NoCache = true;
      continue;
    }
    if (Value("--compile-commands-dir=", Options.CompileCommandsDir) ||
        Value("--checks=", Options.Checks) ||
        Value("--config-file=", Options.ConfigFile) ||
        Value("--header-filter=", Options.HeaderFilter) ||
        Value("--cache-dir=", Options.CacheDir))
      continue;
    llvm::errs() << "torchlint lsp: error: unknown option '" << Arg
                 << "' (see torchlint lsp --help)\n";
    return 2;
  }
  Options.ResourceDir = findResourceDir(Argv[0]);
  if (Options.ResourceDir.empty()) {
    llvm::errs() << "torchlint lsp: error: cannot find clang's builtin "
                    "headers (stddef.h); install clang-19 or set "
                    "TORCHLINT_RESOURCE_DIR\n";
    return 2;
  }
  // stdout carries the protocol: nothing else may be printed there.
  std::ios::sync_with_stdio(false);
  // Every frame is written and flushed under the server's output lock. Tied
  // to std::cout, std::cin would flush it before each read, from the reading
  // thread without that lock, racing a worker's frame: a header could be
  // written twice.
  std::cin.tie(nullptr);
  LanguageServer Server(Options, std::cout);
  int Status = Server.run(std::cin);
  // An analysis or a precompiled header may still be running: they write
  // only through temporary files and renames, so leaving now loses nothing
  // but their time, where waiting for them would keep the editor waiting.
  std::_Exit(Status);
}

} // namespace torchlint::lsp
