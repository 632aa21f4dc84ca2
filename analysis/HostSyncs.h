//===--- HostSyncs.h - Where the host waits for the GPU ---------*- C++ -*-===//
//
// The host waits for queued GPU work at a few places: reading a GPU tensor's
// value (.item(), .cpu(), .to(kCPU), printing it), synchronizing explicitly
// (torch::cuda::synchronize(), cudaDeviceSynchronize(), a stream or event's
// synchronize()), and the operations that must see the values before they
// can return (nonzero(), masked_select(), unique(), equal(),
// clip_grad_norm_()). The rule about syncs on every step and the rule
// about timing GPU work both ask for them.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_HOSTSYNCS_H
#define TORCHLINT_ANALYSIS_HOSTSYNCS_H

#include "analysis/DeviceFlow.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace clang {
class Expr;
} // namespace clang

namespace torchlint {

struct HostSync {
  enum class Form {
    Item,        ///< tensor.item()
    Cpu,         ///< tensor.cpu()
    ToCpu,       ///< tensor.to(kCPU)
    Print,       ///< os << tensor
    Synchronize, ///< an explicit synchronization of the device
    /// An operation that waits for its operand's values: one whose result's
    /// size depends on them (nonzero, masked_select, unique, where(cond)),
    /// one that answers on the host (equal, allclose, is_nonzero), or
    /// clip_grad_norm_, which returns the total norm as a host double.
    Hidden
  };
  Form How;
  /// The tensor whose value is read; null for an explicit synchronization.
  const clang::Expr *Tensor = nullptr;
  /// The function as called: "item", "torch::cuda::synchronize".
  llvm::StringRef Called;
};

/// The recipe's and the messages' name of the form: item, cpu, to-cpu,
/// print, synchronize, hidden.
llvm::StringRef formName(HostSync::Form How);

/// E as a place where the host may wait for the device: one of the forms
/// above, whatever device the tensor is on (ask Flow for that). `.to(d)`
/// counts only when every device d may be is the CPU.
std::optional<HostSync> hostSyncAt(const clang::Expr *E, DeviceFlow &Flow);

/// E may wait for the GPU: an explicit synchronization, or a read of a
/// tensor that is not known to be on the host on every path.
bool waitsForGpu(const clang::Expr *E, DeviceFlow &Flow);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_HOSTSYNCS_H
