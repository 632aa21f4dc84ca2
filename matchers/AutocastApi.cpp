#include "matchers/AutocastApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace torchlint::autocast {

namespace {
bool isInAutocastNamespace(const FunctionDecl *FD) {
  const auto *NS = dyn_cast<NamespaceDecl>(FD->getDeclContext());
  if (!NS || !NS->getDeclName().isIdentifier() || NS->getName() != "autocast")
    return false;
  const auto *At = dyn_cast<NamespaceDecl>(NS->getParent());
  return At && At->getDeclName().isIdentifier() && At->getName() == "at" &&
         At->getParent()->isTranslationUnit();
}

/// What a legacy name is about: set_enabled is CUDA's, set_cpu_enabled the
/// CPU's, set_autocast_gpu_dtype CUDA's.
api::DeviceKind deviceOfLegacyName(llvm::StringRef Name) {
  if (Name.contains("cpu"))
    return api::DeviceKind::CPU;
  if (Name == "set_enabled" || Name.contains("gpu"))
    return api::DeviceKind::CUDA;
  return api::DeviceKind::Other; // xpu, hpu, ipu, xla, privateuse1
}

void readSwitch(AutocastCall &Read, const Expr *Value, const ASTContext &Ctx) {
  std::optional<bool> On = api::constantBool(Value, Ctx);
  Read.What =
      !On ? Action::SetFromValue : (*On ? Action::Enable : Action::Disable);
}
} // namespace

std::optional<AutocastCall> classify(const CallExpr *Call,
                                     const ASTContext &Ctx) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getDeclName().isIdentifier() || !isInAutocastNamespace(FD))
    return std::nullopt;
  llvm::StringRef Name = FD->getName();
  AutocastCall Read;
  Read.Call = Call;
  unsigned Args = Call->getNumArgs();
  if (Name == "clear_cache") {
    Read.What = Action::ClearCache;
    return Read;
  }
  if (Name == "set_autocast_cache_enabled" && Args == 1) {
    if (api::constantBool(Call->getArg(0), Ctx) != false)
      return std::nullopt;
    Read.What = Action::DisableCache;
    return Read;
  }
  if (Name == "increment_nesting" || Name == "decrement_nesting") {
    Read.What = Name == "increment_nesting" ? Action::IncrementNesting
                                            : Action::DecrementNesting;
    return Read;
  }
  // 2.4 and later: set_autocast_enabled(at::kCUDA, true),
  // set_autocast_dtype(at::kCUDA, at::kBFloat16).
  if ((Name == "set_autocast_enabled" || Name == "set_autocast_dtype") &&
      Args == 2) {
    Read.TakesDevice = true;
    if (std::optional<api::DeviceLiteral> Device =
            api::asDeviceLiteral(Call->getArg(0)))
      Read.Device = Device->Kind;
    if (Name == "set_autocast_enabled") {
      readSwitch(Read, Call->getArg(1), Ctx);
    } else {
      Read.What = Action::SetDtype;
      Read.Dtype = api::scalarTypeName(Call->getArg(1));
    }
    return Read;
  }
  // Up to 2.3 (and deprecated since): set_enabled(true) for CUDA,
  // set_cpu_enabled(true), set_autocast_gpu_dtype(at::kBFloat16), ...
  if (Args != 1)
    return std::nullopt;
  Read.Device = deviceOfLegacyName(Name);
  if (Name.starts_with("set_") && Name.ends_with("enabled") &&
      Name != "set_autocast_cache_enabled") {
    readSwitch(Read, Call->getArg(0), Ctx);
    return Read;
  }
  if (Name.starts_with("set_autocast_") && Name.ends_with("_dtype")) {
    Read.What = Action::SetDtype;
    Read.Dtype = api::scalarTypeName(Call->getArg(0));
    return Read;
  }
  return std::nullopt;
}

} // namespace torchlint::autocast
