//===--- ForwardFlow.h - A forward dataflow engine over one CFG -*- C++ -*-===//
//
// The flow questions of the rules ("is autocast on here", "is this module in
// evaluation mode here") are facts of paths, not of source order. This is the
// one engine that answers them: a lattice supplies the state at the
// function's entry, a join and a transfer per CFG element; the engine runs
// clang's reverse post-order worklist to a fixpoint and then keeps the state
// before every element, so that a query never re-runs a block.
//
// A Lattice provides:
//   using State = ...;                      copyable, with operator==
//   State entry() const;                    at the function's entry
//   State unreached() const;                the bottom: no path gets here
//   void join(State &Into, const State &From) const;
//   void transfer(State &S, const clang::CFGElement &E) const;
//   static constexpr const char *Name = "...";  for the user, if it gives up
// and, when it cares how a block ends (a break, a continue):
//   void transferTerminator(State &S, const clang::CFGBlock &B) const;
// and, when some edges are never taken (the other arm of a check that the
// lattice knows the answer of):
//   bool edgePossible(const clang::CFGBlock &B, unsigned Succ) const;
// and, when what a path already knows decides a branch (a flag tested
// twice), or a branch teaches the path something (which arm it took):
//   bool transferEdge(State &S, const clang::CFGBlock &B, unsigned Succ) const;
// which refines S for the edge to B's successor Succ, or returns false when
// no path in S takes that edge.
// A join may return bool, true when Into changed, to spare the engine a
// comparison of the states.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_FORWARDFLOW_H
#define TORCHLINT_ANALYSIS_FORWARDFLOW_H

#include "analysis/FunctionCfg.h"

#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/FlowSensitive/DataflowWorklist.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

namespace torchlint {

namespace detail {
template <typename Lattice, typename = void>
struct HasTerminatorTransfer : std::false_type {};
template <typename Lattice>
struct HasTerminatorTransfer<
    Lattice,
    std::void_t<decltype(std::declval<const Lattice &>().transferTerminator(
        std::declval<typename Lattice::State &>(),
        std::declval<const clang::CFGBlock &>()))>> : std::true_type {};

template <typename Lattice, typename = void>
struct HasEdgeFilter : std::false_type {};
template <typename Lattice>
struct HasEdgeFilter<
    Lattice, std::void_t<decltype(std::declval<const Lattice &>().edgePossible(
                 std::declval<const clang::CFGBlock &>(), 0u))>>
    : std::true_type {};

template <typename Lattice, typename = void>
struct HasEdgeTransfer : std::false_type {};
template <typename Lattice>
struct HasEdgeTransfer<
    Lattice,
    std::void_t<decltype(std::declval<const Lattice &>().transferEdge(
        std::declval<typename Lattice::State &>(),
        std::declval<const clang::CFGBlock &>(), 0u))>> : std::true_type {};

template <typename Lattice>
constexpr bool JoinTellsChange =
    std::is_same_v<decltype(std::declval<const Lattice &>().join(
                       std::declval<typename Lattice::State &>(),
                       std::declval<const typename Lattice::State &>())),
                   bool>;
} // namespace detail

template <typename Lattice> class ForwardFlow {
public:
  using State = typename Lattice::State;

  /// Solves the flow of Cfg. Each block may be visited BudgetPerBlock times
  /// (plus a few): a lattice of finite height converges far sooner, and one
  /// that does not is a bug to hear about, not a hang.
  ForwardFlow(const FunctionCfg &Cfg, Lattice L,
              unsigned BudgetPerBlock = DefaultFlowBudget)
      : Cfg(Cfg), L(std::move(L)) {
    solve(BudgetPerBlock);
  }

  /// False when the budget ran out before the fixpoint: the states are then
  /// not to be trusted, and the caller must say so rather than guess.
  bool converged() const { return Converged; }

  /// The state right before the element at P, or nullopt when no path
  /// reaches it. Keep: remember the states of P's block for later questions;
  /// a lattice whose transfer may answer differently later (it asked about
  /// something still being worked out) passes false.
  std::optional<State> before(FunctionCfg::Place P, bool Keep = true) const {
    if (!reaches(P.Block) || P.Element >= Cfg.Blocks[P.Block]->size())
      return std::nullopt;
    if (!Keep && !ElementStates[P.Block]) {
      State Current = Entries[P.Block];
      unsigned Index = 0;
      for (const clang::CFGElement &Element : *Cfg.Blocks[P.Block]) {
        if (Index++ == P.Element)
          break;
        L.transfer(Current, Element);
      }
      return Current;
    }
    return elementStates(P.Block)[P.Element];
  }

  /// True when some path from the entry reaches the block.
  bool reaches(unsigned Block) const {
    return Block < Reached.size() && Reached[Block];
  }

  /// The state when the function returns, or nullopt when it never does.
  std::optional<State> atExit() const {
    const clang::CFGBlock &Exit = Cfg.Graph->getExit();
    if (!Reached[Exit.getBlockID()])
      return std::nullopt;
    return Entries[Exit.getBlockID()];
  }

  const Lattice &lattice() const { return L; }

private:
  void solve(unsigned BudgetPerBlock) {
    const clang::CFG &Graph = *Cfg.Graph;
    unsigned Blocks = Graph.getNumBlockIDs();
    Entries.assign(Blocks, L.unreached());
    Reached.assign(Blocks, false);
    ElementStates.assign(Blocks, std::nullopt);
    clang::PostOrderCFGView Order(&Graph);
    clang::ForwardDataflowWorklist Worklist(Graph, &Order);
    const clang::CFGBlock &Entry = Graph.getEntry();
    Entries[Entry.getBlockID()] = L.entry();
    Reached[Entry.getBlockID()] = true;
    Worklist.enqueueBlock(&Entry);
    unsigned Budget = BudgetPerBlock * Blocks + BudgetPerBlock;
    while (const clang::CFGBlock *Block = Worklist.dequeue()) {
      if (Budget-- == 0) {
        Converged = false;
        return;
      }
      State Out = Entries[Block->getBlockID()];
      for (const clang::CFGElement &Element : *Block)
        L.transfer(Out, Element);
      if constexpr (detail::HasTerminatorTransfer<Lattice>::value)
        L.transferTerminator(Out, *Block);
      unsigned SuccIndex = 0;
      for (const clang::CFGBlock::AdjacentBlock &Succ : Block->succs()) {
        const clang::CFGBlock *Next = Succ.getReachableBlock();
        unsigned Index = SuccIndex++;
        if (!Next)
          continue;
        if constexpr (detail::HasEdgeFilter<Lattice>::value)
          if (!L.edgePossible(*Block, Index))
            continue;
        if constexpr (detail::HasEdgeTransfer<Lattice>::value) {
          State Along = Out;
          if (!L.transferEdge(Along, *Block, Index))
            continue;
          if (flowInto(Next->getBlockID(), Along))
            Worklist.enqueueBlock(Next);
        } else if (flowInto(Next->getBlockID(), Out)) {
          Worklist.enqueueBlock(Next);
        }
      }
    }
  }

  /// Joins Out into the entry of the block; true when that changed it.
  bool flowInto(unsigned Id, const State &Out) {
    if (!Reached[Id]) {
      Reached[Id] = true;
      Entries[Id] = L.unreached();
      L.join(Entries[Id], Out);
      return true;
    }
    if constexpr (detail::JoinTellsChange<Lattice>) {
      return L.join(Entries[Id], Out);
    } else {
      State Joined = Entries[Id];
      L.join(Joined, Out);
      if (Joined == Entries[Id])
        return false;
      Entries[Id] = std::move(Joined);
      return true;
    }
  }

  /// The state before each element of the block, computed on the first
  /// query and kept.
  const std::vector<State> &elementStates(unsigned Block) const {
    std::optional<std::vector<State>> &Slot = ElementStates[Block];
    if (!Slot) {
      Slot.emplace();
      State Current = Entries[Block];
      for (const clang::CFGElement &Element : *Cfg.Blocks[Block]) {
        Slot->push_back(Current);
        L.transfer(Current, Element);
      }
    }
    return *Slot;
  }

  const FunctionCfg &Cfg;
  Lattice L;
  bool Converged = true;
  std::vector<State> Entries;
  std::vector<bool> Reached;
  mutable std::vector<std::optional<std::vector<State>>> ElementStates;
};

/// The flows of one lattice over the functions of a unit, each solved on the
/// first question about one of its statements.
template <typename Lattice> class FunctionFlows {
public:
  /// The state right before S, from S's function; nullopt when S is in no
  /// function with a CFG, on no path from its entry, or the flow did not
  /// converge.
  /// (A template, so that a class may hold the flows of a lattice it only
  /// declares.)
  template <typename L = Lattice>
  std::optional<typename L::State>
  before(const clang::Stmt *S, FunctionCfgCache &Cfgs, const L &Lat) {
    const FunctionCfg *Cfg = Cfgs.of(S);
    if (!Cfg)
      return std::nullopt;
    std::optional<FunctionCfg::Place> Place =
        Cfg->placeOf(S, Cfgs.astContext());
    if (!Place)
      return std::nullopt;
    const ForwardFlow<Lattice> *Flow = solved(*Cfg, Cfgs, Lat);
    return Flow ? Flow->before(*Place) : std::nullopt;
  }

  /// The state when Cfg's function returns; nullopt when it never does or
  /// the flow did not converge.
  template <typename L = Lattice>
  std::optional<typename L::State>
  atExit(const FunctionCfg &Cfg, const FunctionCfgCache &Cfgs, const L &Lat) {
    const ForwardFlow<Lattice> *Flow = solved(Cfg, Cfgs, Lat);
    return Flow ? Flow->atExit() : std::nullopt;
  }

private:
  template <typename L>
  const ForwardFlow<Lattice> *
  solved(const FunctionCfg &Cfg, const FunctionCfgCache &Cfgs, const L &Lat) {
    std::unique_ptr<ForwardFlow<Lattice>> &Flow = Flows[&Cfg];
    if (!Flow) {
      Flow =
          std::make_unique<ForwardFlow<Lattice>>(Cfg, Lat, Cfgs.flowBudget());
      if (!Flow->converged())
        Cfgs.overran(Cfg.Function, L::Name);
    }
    return Flow->converged() ? Flow.get() : nullptr;
  }

  llvm::DenseMap<const FunctionCfg *, std::unique_ptr<ForwardFlow<Lattice>>>
      Flows;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_FORWARDFLOW_H
