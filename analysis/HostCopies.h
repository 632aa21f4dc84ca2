//===--- HostCopies.h - Tensors copied from the host to a device -*- C++
//-*-===//
//
// The data-movement rules look at the same copies: `x.to(device)`,
// `x.cuda()` and `dst.copy_(src)`. This analysis recognises them, says where
// their source lives and whether it is page-locked, and recognises the tensor
// that was created on the host only to be moved (which the pageable-copy rule
// leaves to the rule that fixes it better, by creating it on the device).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_HOSTCOPIES_H
#define TORCHLINT_ANALYSIS_HOSTCOPIES_H

#include "analysis/DeviceFlow.h"

#include <optional>

namespace clang {
class ASTContext;
class BinaryOperator;
class CallExpr;
class CXXOperatorCallExpr;
class Expr;
class VarDecl;
} // namespace clang

namespace torchlint {

struct DeviceCopy {
  enum class Form { To, Cuda, CopyInto };
  Form How;
  const clang::CXXMemberCallExpr *Call;
  /// The tensor copied from.
  const clang::Expr *Source;
  /// to(): the device argument (or the tensor whose device it takes);
  /// copy_(): the destination; cuda(): null.
  const clang::Expr *Target;
  /// The non_blocking argument as written, or null.
  const clang::Expr *NonBlocking;
  /// to(device, dtype): the dtype argument, or null.
  const clang::Expr *DType;
};

/// E as a copy to a device, when it is one of the three forms with a device
/// (or a device-like TensorOptions, or a tensor whose device `to` takes, or
/// a destination tensor) as target.
std::optional<DeviceCopy> asDeviceCopy(const clang::Expr *E);

/// Call as a copy that runs on this machine and puts the tensor on an
/// accelerator on some path; Destination receives the devices it puts it on.
/// Nullopt for other calls, and in template patterns.
std::optional<DeviceCopy>
copyToAccelerator(const clang::CXXMemberCallExpr *Call, DeviceFlow &Flow,
                  FactSet &Destination);

/// The tensor whose device the copy's target reads: `x.to(t)`,
/// `x.to(t.device())`, `x.to(t.options())`; null for any other target.
const clang::Expr *followedTensor(const DeviceCopy &Copy);

/// The devices the copy puts the tensor on.
FactSet destinationOf(const DeviceCopy &Copy, DeviceFlow &Flow);

/// Some path puts the tensor on an accelerator (a known device that is not
/// the CPU).
bool reachesAccelerator(const FactSet &Destination);

/// The copy's non_blocking argument is a constant true.
bool isNonBlocking(const DeviceCopy &Copy, clang::ASTContext &Ctx);

/// The copy's source as pageable host memory: every path gives a host tensor
/// that is not page-locked and comes from a factory, from_blob, a data loader
/// or torch::load. Nullopt when some path may be pinned, on a device, or is
/// not known.
std::optional<FactSet> pageableSource(const DeviceCopy &Copy, DeviceFlow &Flow);

/// A tensor made by a factory on the host and used for nothing but this move:
/// `torch::rand(...).to(d)`, or `auto x = torch::rand(...);` whose only use is
/// `x.to(d)` (or `x = x.to(d)` followed by uses of the moved `x`).
struct CreatedThenMoved {
  const clang::CallExpr *Factory;
  /// The variable in between, if any.
  const clang::VarDecl *Var = nullptr;
  /// `x = x.to(d)`: the assignment, which the fix removes whole.
  const clang::Expr *Reassignment = nullptr;
};
std::optional<CreatedThenMoved> createdThenMoved(const DeviceCopy &Copy,
                                                 DeviceFlow &Flow);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_HOSTCOPIES_H
