//===--- FunctionCfg.h - CFGs of user functions, built once -----*- C++ -*-===//
//
// Every flow analysis walks the same CFGs: one per function body, with every
// sub-expression as an element so that any expression can be located, and with
// the branch conditions classified for CUDA availability.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_FUNCTIONCFG_H
#define TORCHLINT_ANALYSIS_FUNCTIONCFG_H

#include "analysis/BranchFlags.h"

#include "clang/AST/Decl.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace torchlint {

struct FunctionCfg {
  const clang::FunctionDecl *Function = nullptr;
  std::unique_ptr<clang::CFG> Graph;
  /// Graph's blocks, indexed by their ids.
  std::vector<const clang::CFGBlock *> Blocks;

  struct Place {
    unsigned Block;
    unsigned Element;
  };
  /// Where each statement of the body is evaluated.
  llvm::DenseMap<const clang::Stmt *, Place> Places;
  /// Where each local declaration is initialised.
  llvm::DenseMap<const clang::Decl *, Place> DeclPlaces;

  /// The place of S or of the closest enclosing statement that is an element.
  std::optional<Place> placeOf(const clang::Stmt *S,
                               clang::ASTContext &Ctx) const;

  /// What a search does at an element: go on, end the path there, or stop
  /// with it.
  enum class Step { Continue, EndPath, Found };
  /// Walks the elements reachable from right after From, block by block in
  /// breadth-first order (each block once from its start, around loops
  /// too), and returns the statement of the first element Visit finds.
  /// ReachesExit, when given, tells whether some path not ended by Visit
  /// returns from the function.
  /// Taken, when given, says which edges a path may follow (successor Succ
  /// of a block); the others are left out.
  using EdgeFilter =
      llvm::function_ref<bool(const clang::CFGBlock &, unsigned Succ)>;
  const clang::Stmt *
  search(Place From, llvm::function_ref<Step(const clang::CFGElement &)> Visit,
         bool *ReachesExit = nullptr, EdgeFilter Taken = nullptr) const;

  /// Whether the edge to successor Succ of B can be taken on a machine where
  /// CUDA is (or is not) available. Neither is the arm that a flag the
  /// function never changes after its constant initialization rules out
  /// (`bool debug_input = false; if (debug_input) dump();`).
  bool edgePossible(const clang::CFGBlock &B, unsigned Succ,
                    bool CudaAvailable) const;

private:
  mutable StableFlags Stable;
};

/// The function whose body holds S; for a statement in a lambda's body, the
/// lambda's call operator (a lambda's body is a CFG of its own).
const clang::FunctionDecl *functionOf(const clang::Stmt *S,
                                      clang::ASTContext &Ctx);

/// S is in a template's pattern, not in code that runs: its function is a
/// dependent context.
bool inTemplatePattern(const clang::Stmt *S, clang::ASTContext &Ctx);

/// Whether a CFG has an element where each local object is destroyed. The
/// grad-mode flow needs a guard's end of life; the device flow was built and
/// measured on CFGs without them.
enum class ObjectLifetimes { Omitted, Shown };

/// How many times a flow may visit each block of a function: a lattice of
/// finite height converges far sooner, so running out is a bug or a
/// pathological function, to be told about rather than hung on.
inline constexpr unsigned DefaultFlowBudget = 64;

class FunctionCfgCache {
public:
  explicit FunctionCfgCache(
      clang::ASTContext &Ctx,
      ObjectLifetimes Lifetimes = ObjectLifetimes::Omitted)
      : Ctx(Ctx), Lifetimes(Lifetimes) {}
  clang::ASTContext &astContext() const { return Ctx; }

  /// The CFG of FD's body, or null when FD has no body or none can be built.
  const FunctionCfg *get(const clang::FunctionDecl *FD);

  /// Told that a flow analysis gave up on a function: its budget ran out
  /// before a fixpoint. What depended on it is then not reported, and the
  /// user is told so, never left with a silent "unknown".
  using OverrunHandler = std::function<void(const clang::FunctionDecl *,
                                            llvm::StringRef Analysis)>;
  /// The flows that run on these CFGs may visit each block PerBlock times.
  void setFlowBudget(unsigned PerBlock, OverrunHandler OnOverrun) {
    BudgetPerBlock = PerBlock;
    this->OnOverrun = std::move(OnOverrun);
  }
  unsigned flowBudget() const { return BudgetPerBlock; }
  void overran(const clang::FunctionDecl *FD, llvm::StringRef Analysis) const {
    if (OnOverrun)
      OnOverrun(FD, Analysis);
  }
  /// The CFG of the function whose body holds S (functionOf), or null.
  const FunctionCfg *of(const clang::Stmt *S) {
    return S ? get(functionOf(S, Ctx)) : nullptr;
  }

private:
  clang::ASTContext &Ctx;
  ObjectLifetimes Lifetimes;
  unsigned BudgetPerBlock = DefaultFlowBudget;
  OverrunHandler OnOverrun;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<FunctionCfg>>
      Cache;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_FUNCTIONCFG_H
