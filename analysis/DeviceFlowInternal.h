//===--- DeviceFlowInternal.h - Shared by the device flow's sources -*- C++
//-*-===//
//
// The lattice the device flow runs on, one function's analysis, and the
// helpers on fact sets that DeviceFlow.cpp defines for the other
// DeviceFlow*.cpp. Not for the rules: they ask DeviceFlow.h.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_DEVICEFLOWINTERNAL_H
#define TORCHLINT_ANALYSIS_DEVICEFLOWINTERNAL_H

#include "analysis/DeviceFlow.h"
#include "analysis/ForwardFlow.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>

namespace torchlint {

/// The device facts as a lattice on the shared engine: the transfer and the
/// edges a machine takes are the flow's, for one function under one binding
/// of its parameters.
struct DeviceFlow::Lattice {
  using State = DeviceFlow::State;
  static constexpr const char *Name = "the device flow";

  DeviceFlow *Flow;
  Analysis *A;

  State entry() const;
  State unreached() const { return State(); }
  bool join(State &Into, const State &From) const {
    return mergeState(Into, From);
  }
  void transfer(State &S, const clang::CFGElement &Element) const {
    Flow->transfer(*A, S, Element);
  }
  bool edgePossible(const clang::CFGBlock &B, unsigned Succ) const;
};

struct DeviceFlow::Analysis {
  const clang::FunctionDecl *Function = nullptr;
  const FunctionCfg *Cfg = nullptr;
  Bindings Params;
  std::unique_ptr<ForwardFlow<Lattice>> Solved;
  State Exit;
  bool ExitReached = false;
  bool Done = false;
  /// The work budget ran out before a fixed point: nothing it says counts.
  bool Failed = false;
  /// References and copies of module holders, to what they stand for.
  llvm::DenseMap<const clang::Decl *, const clang::Decl *> Aliases;
  /// Made while a member's value was still being worked out, so it may have
  /// seen "unknown" for it: not reused once that is over.
  bool Provisional = false;
};

namespace device_flow {

/// Bounds on the interprocedural work, so that no input makes it explode.
constexpr unsigned MaxDepth = 12;

/// The set "anywhere": no device is known.
FactSet unknown();

/// Sorted and without repeats, as every FactSet is kept.
void sortFacts(FactSet &Facts);

/// Adds From to Into; true when Into changed. "Unknown" absorbs everything.
bool mergeFacts(FactSet &Into, const FactSet &From);

/// Re-labels known facts: the value now got its device at Origin.
FactSet relabel(FactSet Facts, Provenance How, const clang::Stmt *Origin,
                const clang::Expr *DeviceExpr = nullptr);

/// The same devices, in memory that is not page-locked (or, with Pinned,
/// that is): the result of an operation that allocates, or of pin_memory().
FactSet withPinned(FactSet Facts, bool Pinned);

/// A device parameter whose callers choose the device: with a GPU, a GPU on
/// the runs they make it one.
DeviceFact chosenByCaller(const clang::ParmVarDecl *Param);

/// One known device, got as How at Origin.
FactSet single(api::DeviceKind Kind, Provenance How, const clang::Stmt *Origin,
               const clang::Expr *Literal = nullptr);

/// FD's definition where this unit has its body, else null.
const clang::FunctionDecl *definitionOf(const clang::FunctionDecl *FD);

/// The arguments that bind Callee's parameters (an operator method's object
/// left out).
llvm::SmallVector<const clang::Expr *, 4>
parameterArgs(const clang::CallExpr *Call, const clang::FunctionDecl *Callee);

/// Collects where the tensor operands of one operation are, and says where
/// its result is. An operation's tensors must share a device (a 0-dim CPU
/// tensor aside), so an operand whose devices are all known, one of them a
/// GPU (`x.to(device)`), puts the result where it is, whatever the unknown
/// operands hold; without one, the result may be wherever any operand is. An
/// operand known only on the CPU decides nothing: it may be a 0-dim tensor
/// joining GPU ones.
class OperationResult {
public:
  void addOperand(const FactSet &Facts) {
    mergeFacts(Any, Facts);
    bool AllKnown =
        !Facts.empty() &&
        llvm::all_of(Facts, [](const DeviceFact &F) { return F.isKnown(); });
    bool SomeGpu = llvm::any_of(Facts, [](const DeviceFact &F) {
      return F.Kind != api::DeviceKind::CPU;
    });
    if (AllKnown && SomeGpu)
      mergeFacts(Deciding, Facts);
  }
  bool empty() const { return Any.empty(); }
  FactSet result() const { return Deciding.empty() ? Any : Deciding; }
  /// The deciding operands' devices alone: empty when none decides.
  const FactSet &decided() const { return Deciding; }

private:
  FactSet Any;
  FactSet Deciding;
};

/// Every fact is of default options: no device was named.
bool allDefaultOptions(const FactSet &Facts);

/// No fact is known.
bool allUnknown(const FactSet &Facts);

/// FD is std::Name.
bool isStdFunction(const clang::FunctionDecl *FD, llvm::StringRef Name);

/// A standard container whose elements hold tensors (a map of losses, a
/// deque of batches) and is not a tuple: an element written is one of its
/// values.
bool isStandardContainerOfTensors(clang::QualType T);

/// A module whose construction puts its parameters on the CPU: any but a
/// TorchScript module, which is empty until a module is loaded into it.
bool constructedOnCpu(clang::QualType T);

} // namespace device_flow

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_DEVICEFLOWINTERNAL_H
