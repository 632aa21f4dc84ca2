#include "ProgramRounds.h"

namespace torchlint {

ProgramRun analyzeProgram(const std::vector<CompileEntry> &Entries,
                          const ProgramUnitAnalyzer &Analyze, unsigned Jobs,
                          const ProgressCallback &Progress, unsigned Rounds) {
  ProgramRun Run;
  const ImportedSummaries Nothing;
  Run.Results = analyzeAll(
      Entries,
      [&](const CompileEntry &Entry) { return Analyze(Entry, Nothing); }, Jobs,
      Progress);
  Run.Analyses = Entries.size();
  Run.Rounds = 1;
  std::vector<ImportedSummaries> Given(Entries.size());
  std::vector<std::string> Files;
  for (const CompileEntry &Entry : Entries)
    Files.push_back(Entry.File);
  for (; Run.Rounds < Rounds; ++Run.Rounds) {
    std::vector<const UnitSummary *> All;
    for (const TranslationUnitResult &Result : Run.Results)
      All.push_back(Result.Summary ? &*Result.Summary : nullptr);
    std::vector<size_t> Again;
    std::vector<ImportedSummaries> Next(Entries.size());
    for (size_t I = 0; I < Entries.size(); ++I) {
      if (!Run.Results[I].Summary)
        continue;
      Next[I] = importsFor(I, All, Files);
      if (Next[I] != Given[I])
        Again.push_back(I);
    }
    if (Again.empty())
      break;
    std::vector<CompileEntry> Units;
    for (size_t I : Again)
      Units.push_back(Entries[I]);
    std::vector<TranslationUnitResult> Results = analyzeAll(
        Units,
        [&](const CompileEntry &Entry) {
          return Analyze(Entry, Next[Again[&Entry - Units.data()]]);
        },
        Jobs, Progress);
    for (size_t K = 0; K < Again.size(); ++K) {
      Given[Again[K]] = std::move(Next[Again[K]]);
      Run.Results[Again[K]] = std::move(Results[K]);
    }
    Run.Analyses += Again.size();
  }
  return Run;
}

} // namespace torchlint
