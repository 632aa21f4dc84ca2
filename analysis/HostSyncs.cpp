#include "analysis/HostSyncs.h"

#include "matchers/TorchApi.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace torchlint {

llvm::StringRef formName(HostSync::Form How) {
  switch (How) {
  case HostSync::Form::Item:
    return "item";
  case HostSync::Form::Cpu:
    return "cpu";
  case HostSync::Form::ToCpu:
    return "to-cpu";
  case HostSync::Form::Print:
    return "print";
  case HostSync::Form::Synchronize:
    return "synchronize";
  case HostSync::Form::Hidden:
    return "hidden";
  }
  return "";
}

namespace {
/// A function that blocks the host until the device (or a stream or event
/// of it) is done: libtorch's and the CUDA runtime's.
bool isDeviceSynchronization(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return false;
  std::string Name = FD->getQualifiedNameAsString();
  if (Name == "torch::cuda::synchronize" ||
      Name == "c10::cuda::device_synchronize" ||
      Name == "cudaDeviceSynchronize" || Name == "cudaStreamSynchronize" ||
      Name == "cudaEventSynchronize")
    return true;
  // CUDAStream::synchronize(), CUDAEvent::synchronize(), c10::Event's.
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return MD && FD->getName() == "synchronize" &&
         api::isInTorchNamespace(MD->getParent());
}
/// Operations that wait for their operand's values before they return:
/// their result's size depends on them, or they answer on the host.
bool waitsForValues(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("nonzero", "nonzero_numpy", "argwhere", "masked_select", true)
      .Cases("unique", "unique_consecutive", "unique_dim", "_unique", true)
      .Cases("_unique2", "equal", "allclose", "is_nonzero", true)
      .Default(false);
}
} // namespace

std::optional<HostSync> hostSyncAt(const Expr *E, DeviceFlow &Flow) {
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Call->getMethodDecl();
    if (isDeviceSynchronization(MD))
      return HostSync{HostSync::Form::Synchronize, nullptr, "synchronize"};
    if (!MD || !MD->getIdentifier() || !api::isTensorMethod(MD))
      return std::nullopt;
    llvm::StringRef Name = MD->getName();
    const Expr *Tensor = Call->getImplicitObjectArgument();
    if (Name == "item")
      return HostSync{HostSync::Form::Item, Tensor, "item"};
    if (Name == "cpu")
      return HostSync{HostSync::Form::Cpu, Tensor, "cpu"};
    if (waitsForValues(Name))
      return HostSync{HostSync::Form::Hidden, Tensor, MD->getName()};
    if (Name != "to" || Call->getNumArgs() < 1 ||
        !api::isDeviceLike(Call->getArg(0)->getType()))
      return std::nullopt;
    FactSet Target = Flow.devicesOf(Call);
    if (Target.empty())
      return std::nullopt;
    for (const DeviceFact &F : Target)
      if (!F.isKnown() || F.Kind != api::DeviceKind::CPU)
        return std::nullopt;
    return HostSync{HostSync::Form::ToCpu, Tensor, "to"};
  }
  if (const auto *Print = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Print->getOperator() != OO_LessLess || Print->getNumArgs() != 2 ||
        !api::isTensor(Print->getArg(1)->getType()))
      return std::nullopt;
    return HostSync{HostSync::Form::Print, Print->getArg(1), "operator<<"};
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (isDeviceSynchronization(Callee))
      return HostSync{HostSync::Form::Synchronize, nullptr, Callee->getName()};
    llvm::StringRef Name = isa<CXXMethodDecl>(Callee)
                               ? llvm::StringRef()
                               : api::torchFunctionName(Callee);
    if (Name.empty() || Call->getNumArgs() < 1)
      return std::nullopt;
    // torch::where(condition) is nonzero(); with three arguments it is not.
    bool WhereOfCondition =
        Name == "where" &&
        (Call->getNumArgs() == 1 || isa<CXXDefaultArgExpr>(Call->getArg(1)));
    if (waitsForValues(Name) || WhereOfCondition || Name == "clip_grad_norm_")
      return HostSync{HostSync::Form::Hidden, Call->getArg(0), Name};
  }
  return std::nullopt;
}

bool waitsForGpu(const Expr *E, DeviceFlow &Flow) {
  std::optional<HostSync> Sync = hostSyncAt(E, Flow);
  if (!Sync)
    return false;
  if (!Sync->Tensor)
    return true;
  // A tensor that is not known to be on the host may be on the GPU.
  FactSet Facts = Flow.devicesOf(Sync->Tensor);
  if (Facts.empty())
    return true;
  for (const DeviceFact &F : Facts)
    if (!F.isKnown() || F.Kind != api::DeviceKind::CPU)
      return true;
  return false;
}

} // namespace torchlint
