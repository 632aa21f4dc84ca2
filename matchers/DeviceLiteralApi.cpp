//===--- DeviceLiteralApi.cpp - Devices as the code writes them -----------===//
//
// Device literals (torch::kCUDA, "cuda:1", torch::Device(...)), strings and
// scalars a call is given, and what a condition says about CUDA's
// availability.
//
//===----------------------------------------------------------------------===//

#include "matchers/TorchApi.h"
#include "matchers/TorchApiInternal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace torchlint::api {

static std::optional<DeviceKind> kindFromName(llvm::StringRef Name) {
  Name.consume_front("k");
  return llvm::StringSwitch<std::optional<DeviceKind>>(Name)
      .Case("CPU", DeviceKind::CPU)
      .Case("CUDA", DeviceKind::CUDA)
      .Cases("MPS", "XPU", "HIP", "XLA", "Vulkan", "IPU", DeviceKind::Other)
      .Cases("Lazy", "PrivateUse1", "MTIA", "HPU", "VE", DeviceKind::Other)
      .Default(std::nullopt);
}

std::optional<DeviceLiteral> parseDeviceString(llvm::StringRef S,
                                               const Expr *Spelling) {
  auto [Type, Index] = S.split(':');
  std::optional<DeviceKind> Kind =
      llvm::StringSwitch<std::optional<DeviceKind>>(Type)
          .Case("cpu", DeviceKind::CPU)
          .Case("cuda", DeviceKind::CUDA)
          .Cases("mps", "xpu", "hip", "xla", "vulkan", "ipu", DeviceKind::Other)
          .Default(std::nullopt);
  if (!Kind)
    return std::nullopt;
  DeviceLiteral L;
  L.Kind = *Kind;
  L.Spelling = Spelling;
  unsigned Value;
  if (!Index.empty() && !Index.getAsInteger(10, Value))
    L.Index = static_cast<int>(Value);
  return L;
}

const StringLiteral *stringArgument(const Expr *E) {
  E = ignoreWrappers(E);
  if (const auto *S = dyn_cast_or_null<StringLiteral>(E))
    return S;
  // std::string("cuda") built from a literal.
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E))
    if (Construct->getNumArgs() >= 1)
      return dyn_cast<StringLiteral>(ignoreWrappers(Construct->getArg(0)));
  return nullptr;
}

std::optional<std::string> literalText(const Expr *E) {
  const StringLiteral *Literal = stringArgument(E);
  if (!Literal || Literal->getCharByteWidth() != 1)
    return std::nullopt;
  return Literal->getString().str();
}

std::optional<DeviceLiteral> asDeviceLiteral(const Expr *E) {
  E = ignoreWrappers(E);
  if (!E)
    return std::nullopt;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = Ref->getDecl();
    if (const auto *Enumerator = dyn_cast<EnumConstantDecl>(D)) {
      const auto *Enum = dyn_cast<EnumDecl>(Enumerator->getDeclContext());
      if (!hasQualifiedName(Enum, "c10::DeviceType"))
        return std::nullopt;
      if (std::optional<DeviceKind> Kind = kindFromName(D->getName()))
        return DeviceLiteral{*Kind, -1, E};
      return std::nullopt;
    }
    if (const auto *Var = dyn_cast<VarDecl>(D)) {
      if (!isDeviceType(Var->getType()) || !isInTorchNamespace(Var) ||
          !Var->getDeclName().isIdentifier())
        return std::nullopt;
      if (std::optional<DeviceKind> Kind = kindFromName(Var->getName()))
        return DeviceLiteral{*Kind, -1, E};
    }
    return std::nullopt;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (!isDevice(Construct->getType()) &&
        !isTensorOptions(Construct->getType()))
      return std::nullopt;
    if (Construct->getNumArgs() < 1)
      return std::nullopt;
    const Expr *First = Construct->getArg(0);
    if (isTensorOptions(Construct->getType()) &&
        !isDeviceLike(First->getType()))
      return std::nullopt;
    if (const StringLiteral *S = stringArgument(First))
      return parseDeviceString(S->getString(), S);
    std::optional<DeviceLiteral> L = asDeviceLiteral(First);
    if (L && Construct->getNumArgs() >= 2 &&
        !isa<CXXDefaultArgExpr>(Construct->getArg(1)) &&
        !Construct->getArg(1)->isValueDependent()) {
      Expr::EvalResult Index;
      const ASTContext &Ctx = Construct->getConstructor()->getASTContext();
      if (Construct->getArg(1)->EvaluateAsInt(Index, Ctx))
        L->Index = static_cast<int>(Index.Val.getInt().getExtValue());
    }
    return L;
  }
  return std::nullopt;
}

bool isScalarTensor(const Expr *E) {
  E = ignoreWrappers(E);
  auto ExplicitArgs = [](const CallExpr *Call) {
    unsigned N = 0;
    for (const Expr *Arg : Call->arguments())
      if (!isa<CXXDefaultArgExpr>(Arg))
        ++N;
    return N;
  };
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    if (!isTensorMethod(MD))
      return false;
    llvm::StringRef Name = MD->getName();
    bool Reduction =
        llvm::StringSwitch<bool>(Name)
            .Cases("sum", "mean", "max", "min", "norm", true)
            .Cases("prod", "std", "var", "amax", "amin", true)
            .Cases("median", "nansum", "nanmean", "all", "any", true)
            .Default(false);
    if (Reduction)
      return ExplicitArgs(Member) == 0;
    return false;
  }
  if (const auto *Call = dyn_cast_or_null<CallExpr>(E)) {
    llvm::StringRef Name = torchFunctionName(Call->getDirectCallee());
    if (Name == "scalar_tensor")
      return true;
    if (Name == "tensor" && Call->getNumArgs() >= 1) {
      QualType T = bareType(Call->getArg(0)->getType());
      return !T.isNull() && T->isArithmeticType();
    }
  }
  return false;
}

static const FunctionDecl *directCallee(const Expr *E) {
  E = ignoreWrappers(E);
  if (const auto *Call = dyn_cast_or_null<CallExpr>(E))
    return Call->getDirectCallee();
  return nullptr;
}

bool isAvailabilityQuery(const Expr *E) {
  const FunctionDecl *FD = directCallee(E);
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  if (Name == "is_available" || Name == "hasCUDA") {
    std::string Qualified = FD->getQualifiedNameAsString();
    return Qualified == "torch::cuda::is_available" ||
           Qualified == "at::cuda::is_available" ||
           Qualified == "at::hasCUDA" || Qualified == "at::Context::hasCUDA";
  }
  return false;
}

static bool isDeviceCountQuery(const Expr *E) {
  const FunctionDecl *FD = directCallee(E);
  if (!FD || !FD->getDeclName().isIdentifier() ||
      FD->getName() != "device_count")
    return false;
  std::string Qualified = FD->getQualifiedNameAsString();
  return Qualified == "torch::cuda::device_count" ||
         Qualified == "at::cuda::device_count" ||
         Qualified == "c10::cuda::device_count";
}

/// `A && B` holds only when both do, and fails when either fails.
static Availability availabilityOfAnd(const Availability &A,
                                      const Availability &B) {
  Availability R;
  R.TrueMeansAvailable = A.TrueMeansAvailable || B.TrueMeansAvailable;
  R.TrueMeansUnavailable = A.TrueMeansUnavailable || B.TrueMeansUnavailable;
  R.FalseMeansAvailable = A.FalseMeansAvailable && B.FalseMeansAvailable;
  R.FalseMeansUnavailable = A.FalseMeansUnavailable && B.FalseMeansUnavailable;
  return R;
}

static std::optional<llvm::APSInt> integerConstant(const Expr *E) {
  const Expr *Bare = ignoreWrappers(E);
  if (const auto *Int = dyn_cast_or_null<IntegerLiteral>(Bare))
    return llvm::APSInt(Int->getValue(), /*isUnsigned=*/false);
  return std::nullopt;
}

static Availability availabilityOf(const Expr *Cond, unsigned Depth) {
  Availability Exact{true, false, false, true};
  Availability None;
  if (!Cond || Depth > 8)
    return None;
  const Expr *E = ignoreWrappers(Cond);
  if (!E)
    return None;
  if (isAvailabilityQuery(E))
    return Exact;
  if (isDeviceCountQuery(E)) // used as a bool: non-zero means available
    return Exact;
  if (const auto *Not = dyn_cast<UnaryOperator>(E))
    if (Not->getOpcode() == UO_LNot)
      return availabilityOf(Not->getSubExpr(), Depth + 1).negated();
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // __builtin_expect(cond, 0), as C10_UNLIKELY and TORCH_CHECK expand to.
    if (Call->getBuiltinCallee() == Builtin::BI__builtin_expect &&
        Call->getNumArgs() >= 1)
      return availabilityOf(Call->getArg(0), Depth + 1);
  }
  if (const auto *Cast = dyn_cast<CXXStaticCastExpr>(E))
    return availabilityOf(Cast->getSubExpr(), Depth + 1);
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    if (Binary->getOpcode() == BO_LAnd || Binary->getOpcode() == BO_LOr) {
      Availability L = availabilityOf(Binary->getLHS(), Depth + 1);
      Availability R = availabilityOf(Binary->getRHS(), Depth + 1);
      if (Binary->getOpcode() == BO_LOr) // De Morgan
        return availabilityOfAnd(L.negated(), R.negated()).negated();
      return availabilityOfAnd(L, R);
    }
    if (!Binary->isComparisonOp())
      return None;
    const Expr *Count = nullptr;
    std::optional<llvm::APSInt> Bound;
    BinaryOperatorKind Op = Binary->getOpcode();
    if (isDeviceCountQuery(Binary->getLHS())) {
      Count = Binary->getLHS();
      Bound = integerConstant(Binary->getRHS());
    } else if (isDeviceCountQuery(Binary->getRHS())) {
      Count = Binary->getRHS();
      Bound = integerConstant(Binary->getLHS());
      Op = BinaryOperator::reverseComparisonOp(Op);
    }
    if (Count && Bound) {
      int64_t N = Bound->getExtValue();
      if ((Op == BO_GT && N == 0) || (Op == BO_GE && N == 1) ||
          (Op == BO_NE && N == 0))
        return Exact;
      if ((Op == BO_EQ && N == 0) || (Op == BO_LT && N == 1) ||
          (Op == BO_LE && N == 0))
        return Exact.negated();
    }
    return None;
  }
  // A bool that holds the answer: `auto cuda = torch::cuda::is_available();`.
  // It is taken to keep its initial value, as such flags do.
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      if (Var->getType()->isBooleanType() && Var->hasInit() &&
          !Var->getType()->isReferenceType())
        return availabilityOf(Var->getInit(), Depth + 1);
  return None;
}

Availability availabilityOf(const Expr *Cond) {
  return availabilityOf(Cond, 0);
}

} // namespace torchlint::api
