#include "driver/ProgramRounds.h"

#include "driver/KeptUnits.h"

#include <atomic>
#include <memory>
#include <optional>

namespace torchlint {

namespace {

/// A unit a round analyzes again, with what it is told now.
struct ToldAgain {
  size_t Index;
  ImportedSummaries Imports;
};

/// The units that All's summaries tell something other than what they were
/// Given last: those a round analyzes again, in order. A unit with no
/// summary (it could not be analyzed) is told nothing. The CLI's pass and
/// the language server's replay of it share this, so that their rounds are
/// the same.
std::vector<ToldAgain> toldAgain(const std::vector<const UnitSummary *> &All,
                                 const std::vector<ImportedSummaries> &Given,
                                 const std::vector<std::string> &Files) {
  std::vector<ToldAgain> Again;
  for (size_t I = 0; I < All.size(); ++I) {
    if (!All[I])
      continue;
    ImportedSummaries Next = importsFor(I, All, Files);
    if (Next != Given[I])
      Again.push_back({I, std::move(Next)});
  }
  return Again;
}

} // namespace

ProgramRun analyzeProgram(const std::vector<CompileEntry> &Entries,
                          const ProgramUnitAnalyzer &Analyze, unsigned Jobs,
                          const ProgressCallback &Progress, unsigned Rounds,
                          uint64_t KeptMemory) {
  ProgramRun Run;
  const ImportedSummaries Nothing;
  std::vector<std::string> Files;
  for (const CompileEntry &Entry : Entries)
    Files.push_back(Entry.File);
  // A unit is kept when it may be told something (FirstRoundListeners),
  // while the process stays under KeptMemory; a later round parses again the
  // units that were not kept. Either way the findings are the same.
  std::vector<std::unique_ptr<ParsedUnit>> Kept(Entries.size());
  bool MayKeep = Rounds > 1 && KeptMemory > 0;
  std::optional<FirstRoundListeners> Listeners;
  if (MayKeep)
    Listeners.emplace(Entries);
  Run.Results = analyzeAll(
      Entries,
      [&](const CompileEntry &Entry) {
        size_t I = &Entry - Entries.data();
        TranslationUnitResult Result =
            Analyze(Entry, Nothing, MayKeep ? &Kept[I] : nullptr);
        if (MayKeep && !(Listeners->mayBeTold(I, Result.Summary) && Kept[I] &&
                         mayKeepAnother(KeptMemory)))
          Kept[I].reset();
        return Result;
      },
      Jobs, Progress);
  Listeners.reset();
  Run.Analyses = Entries.size();
  Run.Rounds = 1;
  std::vector<ImportedSummaries> Given(Entries.size());
  for (; Run.Rounds < Rounds; ++Run.Rounds) {
    std::vector<const UnitSummary *> All;
    for (const TranslationUnitResult &Result : Run.Results)
      All.push_back(Result.Summary ? &*Result.Summary : nullptr);
    std::vector<ToldAgain> Again = toldAgain(All, Given, Files);
    if (Again.empty())
      break;
    std::vector<CompileEntry> Units;
    for (const ToldAgain &Unit : Again)
      Units.push_back(Entries[Unit.Index]);
    std::atomic<size_t> Reparsed{0};
    // A unit parsed again may still be told more in the next round.
    bool KeepParsed = MayKeep && Run.Rounds + 1 < Rounds;
    std::vector<TranslationUnitResult> Results = analyzeAll(
        Units,
        [&](const CompileEntry &Entry) {
          const auto &[I, Next] = Again[&Entry - Units.data()];
          if (Kept[I])
            return Kept[I]->analyzeAgain(Next);
          TranslationUnitResult Result =
              Analyze(Entry, Next, KeepParsed ? &Kept[I] : nullptr);
          // A later round's result is cached too: a warm run reads it.
          if (!Result.FromCache)
            ++Reparsed;
          if (Kept[I] && !mayKeepAnother(KeptMemory))
            Kept[I].reset();
          return Result;
        },
        Jobs, Progress);
    for (size_t K = 0; K < Again.size(); ++K) {
      Given[Again[K].Index] = std::move(Again[K].Imports);
      Run.Results[Again[K].Index] = std::move(Results[K]);
    }
    Run.Analyses += Again.size();
    Run.Reparsed += Reparsed;
  }
  return Run;
}

UnitInProgram analyzeUnitInProgram(const std::vector<CompileEntry> &Entries,
                                   size_t Self,
                                   const ProgramUnitAnalyzer &Analyze,
                                   const CachedUnitResult &Cached,
                                   unsigned Rounds) {
  UnitInProgram Run;
  Run.Given.resize(Entries.size());
  Run.Summaries.resize(Entries.size());
  std::vector<std::string> Files;
  for (const CompileEntry &Entry : Entries)
    Files.push_back(Entry.File);
  for (size_t I = 0; I < Entries.size(); ++I) {
    if (I == Self)
      continue;
    std::optional<TranslationUnitResult> Known = Cached(Entries[I], {});
    if (!Known && Run.Unknown++ == 0)
      Run.FirstUnknown = Entries[I].File;
    if (Known)
      Run.Summaries[I] = std::move(Known->Summary);
  }
  std::unique_ptr<ParsedUnit> Kept;
  bool Alone = Run.Unknown > 0 || Rounds < 2;
  Run.Result = Analyze(Entries[Self], {}, Alone ? nullptr : &Kept);
  Run.Summaries[Self] = Run.Result.Summary;
  if (Alone)
    return Run;
  for (unsigned Round = 1; Round < Rounds; ++Round) {
    std::vector<const UnitSummary *> All;
    for (const std::optional<UnitSummary> &Summary : Run.Summaries)
      All.push_back(Summary ? &*Summary : nullptr);
    std::vector<ToldAgain> Again = toldAgain(All, Run.Given, Files);
    if (Again.empty())
      break;
    // All of a round's imports are worked out before any unit is told, as
    // analyzeProgram does.
    std::vector<std::optional<UnitSummary>> Told = Run.Summaries;
    for (auto &[I, Next] : Again) {
      if (I == Self) {
        Run.Result =
            Kept ? Kept->analyzeAgain(Next) : Analyze(Entries[I], Next, &Kept);
        Told[I] = Run.Result.Summary;
      } else if (std::optional<TranslationUnitResult> Known =
                     Cached(Entries[I], Next)) {
        Told[I] = std::move(Known->Summary);
      }
      Run.Given[I] = std::move(Next);
    }
    Run.Summaries = std::move(Told);
  }
  return Run;
}

} // namespace torchlint
