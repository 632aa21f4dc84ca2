#include "ProgramRounds.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

#include <atomic>
#include <memory>
#include <mutex>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

namespace torchlint {

namespace {
uint64_t physicalMemory() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long Pages = sysconf(_SC_PHYS_PAGES), PageSize = sysconf(_SC_PAGESIZE);
  if (Pages > 0 && PageSize > 0)
    return static_cast<uint64_t>(Pages) * static_cast<uint64_t>(PageSize);
#endif
  return 0;
}

/// A number of kibibytes from a /proc file, after Label ("MemAvailable:").
std::optional<uint64_t> procKibibytes(const char *Path, llvm::StringRef Label) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Text =
      llvm::MemoryBuffer::getFileAsStream(Path);
  if (!Text)
    return std::nullopt;
  llvm::StringRef Rest = (*Text)->getBuffer();
  size_t At = Rest.find(Label);
  if (At == llvm::StringRef::npos)
    return std::nullopt;
  Rest = Rest.drop_front(At + Label.size()).ltrim();
  uint64_t Kibibytes;
  if (Rest.consumeInteger(10, Kibibytes))
    return std::nullopt;
  return Kibibytes;
}

/// Whether one more parsed unit may stay in memory: this process under
/// Budget, and the machine not short of memory (other processes, other
/// torchlint runs in parallel, have their share). Where memory cannot be
/// read, none is kept.
bool mayKeepAnother(uint64_t Budget) {
  std::optional<uint64_t> Resident =
      procKibibytes("/proc/self/status", "VmRSS:");
  std::optional<uint64_t> Available =
      procKibibytes("/proc/meminfo", "MemAvailable:");
  return Resident && Available && (*Resident << 10) <= Budget &&
         (*Available << 10) >= physicalMemory() / 8;
}

} // namespace

uint64_t defaultKeptMemory() { return physicalMemory() / 4; }

ProgramRun analyzeProgram(const std::vector<CompileEntry> &Entries,
                          const ProgramUnitAnalyzer &Analyze, unsigned Jobs,
                          const ProgressCallback &Progress, unsigned Rounds,
                          uint64_t KeptMemory) {
  ProgramRun Run;
  const ImportedSummaries Nothing;
  std::vector<std::string> Files;
  for (const CompileEntry &Entry : Entries)
    Files.push_back(Entry.File);
  // A unit is kept when the units analyzed before it already tell it
  // something, so that the second round surely analyzes it again (keeping
  // costs memory, and the units of a folder of separate programs are never
  // told anything), and only while the process stays under KeptMemory. A
  // later round parses again the units that were not kept. Either way the
  // findings are the same.
  std::vector<std::unique_ptr<ParsedUnit>> Kept(Entries.size());
  bool MayKeep = Rounds > 1 && KeptMemory > 0;
  std::mutex FinishedMutex;
  std::vector<std::optional<UnitSummary>> Finished(Entries.size());
  auto ToldByFinished = [&](size_t I, const UnitSummary &Summary) {
    std::lock_guard<std::mutex> Lock(FinishedMutex);
    Finished[I] = Summary;
    std::vector<const UnitSummary *> All;
    for (const std::optional<UnitSummary> &S : Finished)
      All.push_back(S ? &*S : nullptr);
    return !importsFor(I, All, Files).empty();
  };
  Run.Results = analyzeAll(
      Entries,
      [&](const CompileEntry &Entry) {
        size_t I = &Entry - Entries.data();
        TranslationUnitResult Result =
            Analyze(Entry, Nothing, MayKeep ? &Kept[I] : nullptr);
        if (MayKeep && Result.Summary &&
            !(ToldByFinished(I, *Result.Summary) && Kept[I] &&
              mayKeepAnother(KeptMemory)))
          Kept[I].reset();
        return Result;
      },
      Jobs, Progress);
  Finished.clear();
  Run.Analyses = Entries.size();
  Run.Rounds = 1;
  std::vector<ImportedSummaries> Given(Entries.size());
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
    std::atomic<size_t> Reparsed{0};
    // A unit parsed again may still be told more in the next round.
    bool KeepParsed = MayKeep && Run.Rounds + 1 < Rounds;
    std::vector<TranslationUnitResult> Results = analyzeAll(
        Units,
        [&](const CompileEntry &Entry) {
          size_t I = Again[&Entry - Units.data()];
          if (Kept[I])
            return Kept[I]->analyzeAgain(Next[I]);
          ++Reparsed;
          TranslationUnitResult Result =
              Analyze(Entry, Next[I], KeepParsed ? &Kept[I] : nullptr);
          if (Kept[I] && !mayKeepAnother(KeptMemory))
            Kept[I].reset();
          return Result;
        },
        Jobs, Progress);
    for (size_t K = 0; K < Again.size(); ++K) {
      Given[Again[K]] = std::move(Next[Again[K]]);
      Run.Results[Again[K]] = std::move(Results[K]);
    }
    Run.Analyses += Again.size();
    Run.Reparsed += Reparsed;
  }
  return Run;
}

} // namespace torchlint
