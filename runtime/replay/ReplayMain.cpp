//===--- ReplayMain.cpp - torchlint-replay --------------------------------===//
//
// Replays each finding of the analyzer's log that carries a recipe, before
// and after its fix, and writes the verdicts into a copy of the log.
//
//===----------------------------------------------------------------------===//

#include "Isolation.h"
#include "Replayer.h"
#include "UserModel.h"
#include "common/CheckGlob.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

using namespace torchlint::replay;

namespace {

constexpr const char *Usage =
    R"(usage: torchlint-replay LOG [-o OUT] [--device cuda:0] [--checks GLOB]
                        [--repeats N] [--budget-seconds S]
                        [--model FILE [--input-shape N,C,H,W]]

Replays every finding of LOG (torchlint's SARIF or JSON) whose result carries
a replay recipe: the workload is rebuilt, run as written and as fixed, and
timed or checked. Prints a table; with -o, writes LOG with each replayed
result's verdict added (properties.replay in SARIF, "replay" in JSON).

  -o OUT              where to write the annotated log (never LOG itself)
  --device DEVICE     where to replay (default cuda:0; cpu runs only the
                      scenarios whose claim holds on any device)
  --checks GLOB       rule ids to replay, clang-tidy style (default *)
  --repeats N         at most N timed runs of each variant (default 30)
  --budget-seconds S  timing budget per finding (default 10)
  --model FILE        the program's TorchScript model: the scenarios that run
                      a loaded model (setup-in-loop's torch::jit::load,
                      unsynchronized-timing) replay with it. Loading a
                      TorchScript file runs its code: only a file you name
                      is loaded, never a path from the analyzed source
  --input-shape DIMS  the model's input shape (1,3,224,224), when the recipe
                      does not give it (from_blob sizes, torch::zeros({...}))
  --version           print the version and exit
  --help              print this help and exit
)";

int usageError(const std::string &Message) {
  std::cerr << "torchlint-replay: error: " << Message << "\n"
            << "run 'torchlint-replay --help' for usage\n";
  return 2;
}

bool sameFile(const std::string &A, const std::string &B) {
  struct stat First, Second;
  return ::stat(A.c_str(), &First) == 0 && ::stat(B.c_str(), &Second) == 0 &&
         First.st_dev == Second.st_dev && First.st_ino == Second.st_ino;
}

bool parseNumber(const char *Text, double &Out) {
  char *End = nullptr;
  Out = std::strtod(Text, &End);
  return End && *End == '\0' && End != Text;
}

} // namespace

int main(int Argc, char **Argv) {
  // A variant that must not share a process (Isolation.h).
  if (Argc >= 2 && std::strcmp(Argv[1], "--run-variant") == 0)
    return runVariantHere(std::vector<std::string>(Argv + 2, Argv + Argc));
  ReplayOptions Options;
  {
    std::vector<char> Path(4096);
    ssize_t Length = ::readlink("/proc/self/exe", Path.data(), Path.size() - 1);
    Options.Executable =
        Length > 0 ? std::string(Path.data(), Length) : Argv[0];
  }
  std::string Input, Output;
  for (int I = 1; I < Argc; ++I) {
    std::string Arg = Argv[I];
    // --option=value and --option value alike.
    std::string Inline;
    bool HasInline = false;
    if (size_t Equals = Arg.find('=');
        Arg.rfind("--", 0) == 0 && Equals != std::string::npos) {
      Inline = Arg.substr(Equals + 1);
      Arg.erase(Equals);
      HasInline = true;
    }
    auto Value = [&]() -> const char * {
      if (HasInline)
        return Inline.c_str();
      return I + 1 < Argc ? Argv[++I] : nullptr;
    };
    if (Arg == "--help" || Arg == "-h") {
      std::cout << Usage;
      return 0;
    }
    if (Arg == "--version") {
      std::cout << "torchlint-replay 0.1.0\n";
      return 0;
    }
    if (Arg == "-o" || Arg == "--device" || Arg == "--checks" ||
        Arg == "--repeats" || Arg == "--budget-seconds" || Arg == "--model" ||
        Arg == "--input-shape") {
      const char *V = Value();
      if (!V)
        return usageError(Arg + " needs a value");
      double Number = 0;
      if (Arg == "--model") {
        if (::access(V, R_OK) != 0)
          return usageError("--model: cannot read '" + std::string(V) + "'");
        Options.ModelFile = V;
      } else if (Arg == "--input-shape") {
        std::optional<std::vector<int64_t>> Shape =
            torchlint::replay::parseShape(V);
        if (!Shape)
          return usageError("--input-shape needs positive sizes separated "
                            "by commas, not '" +
                            std::string(V) + "'");
        Options.ModelInputShape = *Shape;
      } else if (Arg == "-o")
        Output = V;
      else if (Arg == "--device")
        Options.Device = V;
      else if (Arg == "--checks")
        Options.Checks = V;
      else if (!parseNumber(V, Number) || Number <= 0)
        return usageError(Arg + " needs a positive number, not '" + V + "'");
      else if (Arg == "--repeats")
        Options.Repeats = static_cast<unsigned>(Number);
      else
        Options.BudgetSeconds = Number;
      continue;
    }
    if (!Arg.empty() && Arg[0] == '-')
      return usageError("unknown option '" + Arg + "'");
    if (!Input.empty())
      return usageError("one log at a time ('" + Input + "' and '" + Arg +
                        "')");
    Input = Arg;
  }
  if (Input.empty())
    return usageError("no log given");
  if (!Output.empty() && sameFile(Input, Output))
    return usageError("-o " + Output +
                      " is the log being read; it is not "
                      "overwritten, choose another file");
  torchlint::CheckGlob Checks(Options.Checks);
  if (!Checks.invalid().empty())
    return usageError("--checks: '" + Checks.invalid().front() +
                      "' is not a glob");

  try {
    ReplayLog Log = ReplayLog::load(Input);
    Environment Env = probeEnvironment(Options.Device);
    std::cout << "torchlint-replay: libtorch " << Env.TorchVersion << " ("
              << (Env.BuiltWithCuda ? "CUDA" : "CPU-only") << " build"
              << (Env.CudaVersion.empty() ? "" : ", CUDA " + Env.CudaVersion)
              << "), replaying on " << Env.DeviceName << "\n";
    if (!Env.CudaUnusable.empty())
      std::cout << "torchlint-replay: no CUDA device: " << Env.CudaUnusable
                << "; GPU scenarios are not run (torchlint-doctor explains "
                   "why)\n";
    std::vector<ReplayItem> Items;
    for (ReplayItem &Item : Log.items())
      if (Checks.contains(Item.RuleId))
        Items.push_back(std::move(Item));
    bool Progress = ::isatty(STDERR_FILENO);
    std::vector<ReplayRow> Rows;
    for (size_t I = 0; I < Items.size(); ++I) {
      if (Progress)
        std::cerr << "\r[" << I + 1 << "/" << Items.size() << "] "
                  << Items[I].Location << "\033[K" << std::flush;
      Rows.push_back(replayItem(Items[I], Env, Options));
      Log.record(Rows.back().Item, replayProperties(Rows.back(), Env),
                 replaySummary(Rows.back(), Env));
    }
    if (Progress)
      std::cerr << "\r\033[K";
    printTable(Rows, std::cout);
    std::cout << Rows.size() << " finding(s) replayed";
    if (Output.empty())
      std::cout << "; no -o given, so no log was written\n";
    else {
      Log.save(Output);
      std::cout << "; annotated log written to " << Output << "\n";
    }
  } catch (const LogError &E) {
    std::cerr << "torchlint-replay: error: " << E.what() << "\n";
    return 2;
  } catch (const std::invalid_argument &E) {
    return usageError(std::string("--device: ") + E.what());
  } catch (const std::exception &E) {
    // Scenarios catch their own failures; this is for the rest.
    std::string What = E.what();
    std::cerr << "torchlint-replay: error: " << What.substr(0, What.find('\n'))
              << "\n";
    return 1;
  }
  return 0;
}
