//===--- Summaries.h - What one unit tells the others -----------*- C++ -*-===//
//
// The facts a translation unit exports for the rest of the program, and the
// ones it is given back: the devices of the arguments it passes to functions
// defined in other units, and where the values its own functions return
// live. They outlive the AST (functions are named by their mangled names,
// places by file spans), so the CLI can keep them, cache them and hand them
// from one unit to another. A unit is analyzed first alone, then again with
// what the others export, until nothing it is given changes (or a bound).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_SUMMARIES_H
#define TORCHLINT_ANALYSIS_SUMMARIES_H

#include "core/Finding.h"
#include "matchers/TorchApi.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace torchlint {

enum class Provenance : unsigned char;

/// A device fact without the AST: where a value lives and, if known, the
/// place in its unit where it got there.
struct RemoteFact {
  api::DeviceKind Kind = api::DeviceKind::Unknown;
  int Index = -1;
  Provenance How{};
  bool Pinned = false;
  bool RunTimeChoice = false;
  std::optional<Span> Where;

  bool operator<(const RemoteFact &O) const;
  bool operator==(const RemoteFact &O) const;
};
using RemoteFacts = std::vector<RemoteFact>; ///< sorted, distinct

/// What a function returns: the devices of some of its parameters' values
/// (a loss computed from its inputs), plus devices of its own; and what it
/// leaves in the arguments it fills.
struct ReturnSummary {
  std::set<unsigned> FromParameters;
  RemoteFacts Facts;
  /// What it leaves in an argument it takes by non-const reference and sets
  /// (a loader's `next(batch)`): devices of its own, and whether what the
  /// caller passed may remain (a tuple filled element by element).
  struct Fill {
    RemoteFacts Facts;
    bool KeepsGiven = false;
    bool operator==(const Fill &O) const {
      return Facts == O.Facts && KeepsGiven == O.KeepsGiven;
    }
  };
  /// Per parameter position.
  std::map<unsigned, Fill> Fills;

  bool operator==(const ReturnSummary &O) const {
    return FromParameters == O.FromParameters && Facts == O.Facts &&
           Fills == O.Fills;
  }
};

/// What a function does of a training or inference step: a module run, a
/// backward pass or an optimizer step outside its own loops (one step per
/// call), or only inside them (a call of it is an epoch, or a whole run);
/// and whether those steps train (backward or an optimizer step), which
/// tells a round of training steps from a loop over time steps.
struct StepWork {
  bool Runs = false;          ///< a step outside its own loops
  bool Trains = false;        ///< ... which trains
  bool RunsInLoops = false;   ///< steps inside its own loops
  bool TrainsInLoops = false; ///< ... which train

  static StepWork step(bool Trains = false) { return {true, Trains}; }
  static StepWork inLoops(bool Trains = false) {
    return {false, false, true, Trains};
  }
  bool none() const { return !Runs && !RunsInLoops; }
  /// Adds the work of a call made at this level (Nested: inside a loop).
  void add(const StepWork &Called, bool Nested) {
    if (Nested) {
      RunsInLoops |= Called.Runs || Called.RunsInLoops;
      TrainsInLoops |= Called.Trains || Called.TrainsInLoops;
      return;
    }
    Runs |= Called.Runs;
    Trains |= Called.Trains;
    RunsInLoops |= Called.RunsInLoops;
    TrainsInLoops |= Called.TrainsInLoops;
  }
  bool operator==(const StepWork &O) const {
    return Runs == O.Runs && Trains == O.Trains &&
           RunsInLoops == O.RunsInLoops && TrainsInLoops == O.TrainsInLoops;
  }
  bool operator!=(const StepWork &O) const { return !(*this == O); }
};

/// Keyed by the function's mangled name.
struct UnitSummary {
  /// For each function the unit calls but does not define: per parameter,
  /// the devices of the arguments the unit passes (empty for a parameter
  /// whose type carries no device).
  std::map<std::string, std::vector<RemoteFacts>> Passes;
  /// For the functions the unit defines: what they return.
  std::map<std::string, ReturnSummary> Returns;
  /// The functions it defines that take or return a device, a tensor or a
  /// module: which unit a call resolves to.
  std::set<std::string> Defines;
  /// For each virtual method that methods it defines override (declared in
  /// any unit): those methods. A call through the base may run any of them.
  std::map<std::string, std::set<std::string>> Overrides;
  /// For the functions it defines that do step work: what they do, as far
  /// as this unit sees (their bodies, and the functions of this unit they
  /// call).
  std::map<std::string, StepWork> Work;
  /// A call from a function it defines to a function of another unit, and
  /// whether the call is inside a loop of the caller: the edges along which
  /// step work and per-step calls cross units, followed by importsFor.
  struct OutCall {
    std::string Callee;
    bool InLoop = false;
    /// Whether autograd records at the call: off, on, or as the caller's
    /// own callers in other units leave it (the caller has none here).
    enum class Grad : unsigned char { Inherited, Off, On };
    Grad Recording = Grad::Inherited;
    /// No switch of autocast on the paths to the call, and the caller has no
    /// callers here: autocast is as its callers in other units leave it.
    bool AutocastInherited = false;
    bool operator<(const OutCall &O) const {
      return std::tie(Callee, InLoop, Recording, AutocastInherited) <
             std::tie(O.Callee, O.InLoop, O.Recording, O.AutocastInherited);
    }
    bool operator==(const OutCall &O) const {
      return !(*this < O) && !(O < *this);
    }
  };
  std::map<std::string, std::set<OutCall>> CallsOut;
  /// The functions it calls without a definition on every step of a loop
  /// (in a step loop, or in a function that is itself called per step).
  std::set<std::string> CallsPerStep;
  /// The functions of other units it calls while autocast is on (turned on
  /// at the call, or in the caller's callers): where some path turned it on.
  std::map<std::string, Span> CalledUnderAutocast;
  /// What the analysis looked for, and only that can change what it finds:
  /// the arguments other units pass to functions it defines, what functions
  /// it calls without a definition return and what step work they do, and
  /// whether other units call functions it defines on every step.
  std::set<std::string> AskedCallers;
  std::set<std::string> AskedReturns;
  std::set<std::string> AskedWork;
  std::set<std::string> AskedPerStep;
  /// Whether autograd records when other units call these functions.
  std::set<std::string> AskedGrad;
  /// Whether autocast is on when other units call these functions.
  std::set<std::string> AskedAutocast;
  /// The unit runs a backward pass or an optimizer step somewhere.
  bool Trains = false;
  /// Whether the rest of the program trains.
  bool AskedTraining = false;
  /// The unit asks for CUDA somewhere (CudaUse.h).
  bool UsesCuda = false;
  /// Whether the rest of the program does.
  bool AskedCuda = false;
  /// The unit sets cuDNN's benchmark mode, to either value.
  bool DecidesCudnnBenchmark = false;
  /// Whether the rest of the program does.
  bool AskedCudnnBenchmark = false;
};

/// The same functions at the same places.
bool sameSpans(const std::map<std::string, Span> &A,
               const std::map<std::string, Span> &B);

/// What a unit is given of the others' summaries: only what it asked for.
struct ImportedSummaries {
  /// For the functions it defines: the arguments other units pass, joined.
  std::map<std::string, std::vector<RemoteFacts>> Callers;
  /// For the functions it calls without a definition.
  std::map<std::string, ReturnSummary> Returns;
  /// The step work of the functions it calls without a definition, where
  /// they do some: their own, and that of the functions they call in other
  /// units in turn.
  std::map<std::string, StepWork> Work;
  /// The functions it defines that run on every step of another unit's loop:
  /// called from one, or from a function that runs on every step, through
  /// any number of units.
  std::set<std::string> CalledPerStep;
  /// The functions it defines whose calls from other units all run with
  /// autograd off (directly, or through their own callers).
  std::set<std::string> GradOffInCallers;
  /// The functions it defines that some call from another unit runs with
  /// autocast on (turned on there, or by that caller's own callers): where
  /// it was turned on.
  std::map<std::string, Span> AutocastOnInCallers;
  /// Whether a unit of the same program (the units connected to it by
  /// calls) runs a backward pass or an optimizer step; only when asked.
  std::optional<bool> OthersTrain;
  /// Whether a unit of the same program asks for CUDA; only when asked.
  std::optional<bool> OthersUseCuda;
  /// Whether a unit of the same program sets cuDNN's benchmark mode; only
  /// when asked.
  std::optional<bool> OthersDecideCudnnBenchmark;

  bool empty() const {
    return Callers.empty() && Returns.empty() && Work.empty() &&
           CalledPerStep.empty() && GradOffInCallers.empty() &&
           AutocastOnInCallers.empty() && !OthersTrain && !OthersUseCuda &&
           !OthersDecideCudnnBenchmark;
  }
  bool operator==(const ImportedSummaries &O) const {
    return Callers == O.Callers && Returns == O.Returns && Work == O.Work &&
           CalledPerStep == O.CalledPerStep &&
           GradOffInCallers == O.GradOffInCallers &&
           sameSpans(AutocastOnInCallers, O.AutocastOnInCallers) &&
           OthersTrain == O.OthersTrain && OthersUseCuda == O.OthersUseCuda &&
           OthersDecideCudnnBenchmark == O.OthersDecideCudnnBenchmark;
  }
  bool operator!=(const ImportedSummaries &O) const { return !(*this == O); }
};

/// Adds From into Into, keeping it sorted and distinct.
void mergeRemoteFacts(RemoteFacts &Into, const RemoteFacts &From);

/// How many leading folders two paths share: how near two units are.
size_t sharedFolders(const std::string &A, const std::string &B);

/// What unit Self of All is given: the arguments the other units pass to the
/// functions it asked about, and what the functions it asked about return.
/// A compilation database often holds several programs, which may each have
/// a function of the same name (a train() per example): a call resolves to
/// the defining unit nearest to the caller in the file tree (Files: each
/// unit's source; the first in All's order among the nearest), as if each
/// program were the units of one folder and those it shares. A call of a
/// virtual method may run every override of it in the program: what it
/// returns and does is theirs together, and they are called as it is.
ImportedSummaries importsFor(size_t Self,
                             const std::vector<const UnitSummary *> &All,
                             const std::vector<std::string> &Files);

nlohmann::json toJson(const UnitSummary &S);
nlohmann::json toJson(const ImportedSummaries &S);
/// The inverses; throw nlohmann::json::exception on malformed input.
UnitSummary unitSummaryFromJson(const nlohmann::json &J);
ImportedSummaries importedSummariesFromJson(const nlohmann::json &J);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_SUMMARIES_H
