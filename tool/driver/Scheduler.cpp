#include "driver/Scheduler.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/thread.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>

namespace torchlint {

std::vector<TranslationUnitResult>
analyzeAll(const std::vector<CompileEntry> &Entries,
           const UnitAnalyzer &Analyze, unsigned Jobs,
           const ProgressCallback &Progress) {
  std::vector<size_t> Order(Entries.size());
  std::iota(Order.begin(), Order.end(), 0);
  std::vector<uint64_t> Sizes(Entries.size(), 0);
  for (size_t I = 0; I < Entries.size(); ++I)
    llvm::sys::fs::file_size(Entries[I].File, Sizes[I]);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](size_t A, size_t B) { return Sizes[A] > Sizes[B]; });

  std::vector<TranslationUnitResult> Results(Entries.size());
  std::atomic<size_t> Next{0};
  size_t Done = 0;
  std::mutex ProgressMutex;
  auto Worker = [&] {
    for (size_t I; (I = Next.fetch_add(1)) < Order.size();) {
      size_t Index = Order[I];
      Results[Index] = Analyze(Entries[Index]);
      if (Progress) {
        std::lock_guard<std::mutex> Lock(ProgressMutex);
        Progress(++Done, Entries.size(), Entries[Index].File);
      }
    }
  };
  Jobs = std::max(1u, std::min<unsigned>(Jobs, Entries.size()));
  if (Jobs == 1) {
    Worker();
    return Results;
  }
  // Clang recurses deeply on template-heavy headers: give workers the stack
  // a main thread would have, and then some.
  const std::optional<unsigned> StackSize = 16u << 20;
  std::vector<llvm::thread> Threads;
  for (unsigned J = 0; J < Jobs; ++J)
    Threads.emplace_back(StackSize, Worker);
  for (llvm::thread &T : Threads)
    T.join();
  return Results;
}

} // namespace torchlint
