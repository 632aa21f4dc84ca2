#include "compile/Sharding.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace torchlint {

llvm::Expected<Shard> parseShard(llvm::StringRef Text) {
  auto [Index, Count] = Text.split('/');
  Shard S;
  if (Index.getAsInteger(10, S.Index) || Count.getAsInteger(10, S.Count) ||
      S.Count == 0 || S.Count > 4096 || S.Index == 0 || S.Index > S.Count)
    return llvm::createStringError(
        std::errc::invalid_argument,
        "invalid --shard '%s': expected K/N with 1 <= K <= N <= 4096",
        Text.str().c_str());
  return S;
}

std::vector<CompileEntry>
entriesOfShard(const std::vector<CompileEntry> &Entries, Shard S,
               const std::function<uint64_t(const CompileEntry &)> &SizeOf) {
  std::vector<uint64_t> Sizes;
  Sizes.reserve(Entries.size());
  for (const CompileEntry &Entry : Entries)
    Sizes.push_back(SizeOf(Entry));
  std::vector<size_t> Order(Entries.size());
  std::iota(Order.begin(), Order.end(), 0);
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return std::make_tuple(Sizes[B], std::cref(Entries[A].File), A) <
           std::make_tuple(Sizes[A], std::cref(Entries[B].File), B);
  });
  std::vector<uint64_t> Load(S.Count, 0);
  std::vector<bool> Mine(Entries.size(), false);
  for (size_t I : Order) {
    size_t Lightest = std::min_element(Load.begin(), Load.end()) - Load.begin();
    // An empty file still costs a parse: count it as one byte.
    Load[Lightest] += std::max<uint64_t>(Sizes[I], 1);
    Mine[I] = Lightest + 1 == S.Index;
  }
  std::vector<CompileEntry> Result;
  for (size_t I = 0; I < Entries.size(); ++I)
    if (Mine[I])
      Result.push_back(Entries[I]);
  return Result;
}

uint64_t sourceSize(const CompileEntry &Entry) {
  uint64_t Size = 0;
  if (llvm::sys::fs::file_size(Entry.File, Size))
    return 0;
  return Size;
}

} // namespace torchlint
