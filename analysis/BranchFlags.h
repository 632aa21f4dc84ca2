//===--- BranchFlags.h - States split by the flags a path tested -*- C++ -*-===//
//
// `if (amp) turn_on(); ... if (amp) turn_off();` leaves nothing on: the
// second branch goes the way the first went. A flow that joins the two arms
// of the first branch has forgotten which one a path took, and sees a path
// that turned autocast on and skipped the switch-off. So a lattice can keep
// its state split by the values of the boolean variables its paths branched
// on (only those the function never changes after their initialization),
// join only the parts that agree, and take at the next branch on the same
// variable only the matching edge of each part.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_BRANCHFLAGS_H
#define TORCHLINT_ANALYSIS_BRANCHFLAGS_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <utility>

namespace clang {
class CFGBlock;
class VarDecl;
} // namespace clang

namespace torchlint {

/// Which boolean variables never change after their initialization, asked
/// once each.
class StableFlags {
public:
  bool isStable(const clang::VarDecl *Var);

private:
  llvm::DenseMap<const clang::VarDecl *, bool> Known;
};

using FlagValue = std::pair<const clang::VarDecl *, bool>;
/// Sorted by variable.
using FlagValues = llvm::SmallVector<FlagValue, 2>;

/// The stable flag that B's branch tests, and its value on the edge to
/// successor Succ; none for any other branch.
std::optional<FlagValue> flagOnEdge(const clang::CFGBlock &B, unsigned Succ,
                                    StableFlags &Stable);

/// A lattice state split by flag values. Join: how the inner lattice joins
/// two of its states (the first may be its bottom).
template <typename Inner> struct FlagPartitions {
  /// Sorted by their values; none when no path gets here.
  llvm::SmallVector<std::pair<FlagValues, Inner>, 2> Parts;

  /// More parts than this are merged into one that knows no flag: the
  /// flows stay linear in the size of a function.
  static constexpr unsigned MaxParts = 8;

  bool operator==(const FlagPartitions &O) const { return Parts == O.Parts; }

  template <typename Join>
  void add(const FlagValues &Values, const Inner &State, const Join &JoinFn) {
    auto At = llvm::lower_bound(
        Parts, Values, [](const std::pair<FlagValues, Inner> &Part,
                          const FlagValues &V) { return Part.first < V; });
    if (At != Parts.end() && At->first == Values) {
      JoinFn(At->second, State);
      return;
    }
    Parts.insert(At, {Values, State});
    if (Parts.size() > MaxParts) {
      Inner All = merged(JoinFn);
      Parts.clear();
      Parts.push_back({FlagValues(), std::move(All)});
    }
  }

  template <typename Join>
  void join(const FlagPartitions &From, const Join &JoinFn) {
    for (const auto &[Values, State] : From.Parts)
      add(Values, State, JoinFn);
  }

  /// Along the edge to B's successor Succ: false when no part takes it.
  template <typename Join>
  bool takeEdge(const clang::CFGBlock &B, unsigned Succ, StableFlags &Stable,
                const Join &JoinFn) {
    std::optional<FlagValue> Flag = flagOnEdge(B, Succ, Stable);
    if (!Flag)
      return !Parts.empty();
    FlagPartitions Taken;
    for (auto &[Values, State] : Parts) {
      auto Known = llvm::find_if(
          Values, [&](const FlagValue &V) { return V.first == Flag->first; });
      if (Known != Values.end()) {
        if (Known->second == Flag->second)
          Taken.add(Values, State, JoinFn);
        continue;
      }
      FlagValues More = Values;
      More.insert(llvm::lower_bound(More, *Flag), *Flag);
      Taken.add(More, State, JoinFn);
    }
    *this = std::move(Taken);
    return !Parts.empty();
  }

  template <typename Fn> void forEach(const Fn &F) {
    for (auto &Part : Parts)
      F(Part.second);
  }

  /// What any path knows: all parts joined (the inner bottom when none).
  template <typename Join> Inner merged(const Join &JoinFn) const {
    Inner All{};
    for (const auto &Part : Parts)
      JoinFn(All, Part.second);
    return All;
  }
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_BRANCHFLAGS_H
