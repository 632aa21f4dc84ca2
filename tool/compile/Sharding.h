//===--- Sharding.h - --shard=K/N: one machine's part of a run --*- C++ -*-===//
//
// A project too big for one CI machine is split across N jobs, each running
// `torchlint --shard=K/N`, and their SARIF logs merged with `torchlint
// merge`. Every job must pick its part the same way without talking to the
// others, and the parts should take about as long: they are balanced by the
// size of the sources, not by their count.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_COMPILE_SHARDING_H
#define TORCHLINT_TOOL_COMPILE_SHARDING_H

#include "compile/CompileDatabase.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace torchlint {

struct Shard {
  unsigned Index = 1; ///< 1-based
  unsigned Count = 1;
};

/// "K/N" with 1 <= K <= N <= 4096.
llvm::Expected<Shard> parseShard(llvm::StringRef Text);

/// The entries of one shard, in database order. Entries are taken largest
/// first (by SizeOf, then by file name) and each goes to the shard with the
/// fewest bytes so far (the lowest-numbered one on a tie), so every job
/// computes the same partition and the shards have about equal work.
std::vector<CompileEntry>
entriesOfShard(const std::vector<CompileEntry> &Entries, Shard S,
               const std::function<uint64_t(const CompileEntry &)> &SizeOf);

/// The size of the entry's source file, 0 when it cannot be read.
uint64_t sourceSize(const CompileEntry &Entry);

} // namespace torchlint

#endif // TORCHLINT_TOOL_COMPILE_SHARDING_H
