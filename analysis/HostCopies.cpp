#include "analysis/HostCopies.h"

#include "analysis/ReachingValues.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace torchlint {

namespace {
const Expr *nonBlockingArgument(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *MD = Call->getMethodDecl();
  for (unsigned I = 0; I < MD->getNumParams() && I < Call->getNumArgs(); ++I) {
    const IdentifierInfo *Name = MD->getParamDecl(I)->getIdentifier();
    if (Name && Name->getName() == "non_blocking" &&
        !isa<CXXDefaultArgExpr>(Call->getArg(I)))
      return Call->getArg(I);
  }
  return nullptr;
}

/// Factories whose result the program could have asked for on the device
/// directly. torch::tensor and from_blob copy host data: moving them is the
/// copy itself.
bool createsFreshTensor(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || isa<CXXMethodDecl>(FD))
    return false;
  if (api::isLikeFactory(FD))
    return true;
  if (!api::isFactoryFunction(FD))
    return false;
  llvm::StringRef Name = api::torchFunctionName(FD);
  return Name != "from_blob" && Name != "tensor" && Name != "complex";
}

/// What a tensor just made goes through before its copy, when the device
/// could have done it as well: a view, a change of dtype or any other
/// method of it alone (`torch::arange(n).view({1, n})`,
/// `torch::ones(1).to(torch::kFloat)`, `torch::linspace(0, 1, n).repeat(k)`).
/// Not a copy to somewhere else, nor one that reads another tensor.
bool keepsFactoryFresh(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *MD = Call->getMethodDecl();
  if (!api::isTensorMethod(MD) || !api::isTensor(Call->getType()) ||
      llvm::is_contained({"pin_memory", "cpu", "cuda", "copy_"}, MD->getName()))
    return false;
  if (MD->getName() == "to")
    return Call->getNumArgs() >= 1 &&
           api::isScalarType(Call->getArg(0)->getType());
  return llvm::none_of(Call->arguments(), [](const Expr *Arg) {
    return api::isTensor(Arg->getType()) || api::carriesTensors(Arg->getType());
  });
}

const CallExpr *freshFactory(const Expr *E) {
  E = api::ignoreWrappers(E);
  while (const auto *Method = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    if (!keepsFactoryFresh(Method))
      return nullptr;
    E = api::ignoreWrappers(Method->getImplicitObjectArgument());
  }
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  if (!Call || isa<CXXMemberCallExpr>(Call) || isa<CXXOperatorCallExpr>(Call))
    return nullptr;
  return createsFreshTensor(Call) ? Call : nullptr;
}

/// `Var = Moved`, written with Tensor's assignment operator, around Moved.
const CXXOperatorCallExpr *reassignment(const Expr *Moved, const VarDecl *Var,
                                        ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*Moved);
  for (unsigned Steps = 0; Steps < 6; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return nullptr;
    Node = Parents[0];
    const auto *Op = Node.get<CXXOperatorCallExpr>();
    if (!Op)
      continue;
    if (Op->getOperator() != OO_Equal || Op->getNumArgs() != 2 ||
        api::ignoreWrappers(Op->getArg(1)) != api::ignoreWrappers(Moved))
      return nullptr;
    const auto *Target =
        dyn_cast<DeclRefExpr>(Op->getArg(0)->IgnoreParenImpCasts());
    return Target && Target->getDecl() == Var ? Op : nullptr;
  }
  return nullptr;
}
/// E runs whenever the declaration of Var does, later in the same block:
/// no branch, loop or lambda stands between them. Creating the tensor on the
/// device is then what the move would have done anyway.
bool unconditionallyAfter(const Expr *E, const VarDecl *Var, ASTContext &Ctx) {
  DynTypedNodeList DeclParents = Ctx.getParents(*Var);
  const auto *Declaration =
      DeclParents.empty() ? nullptr : DeclParents[0].get<DeclStmt>();
  if (!Declaration)
    return false;
  DynTypedNodeList BlockParents = Ctx.getParents(*Declaration);
  const auto *Block =
      BlockParents.empty() ? nullptr : BlockParents[0].get<CompoundStmt>();
  if (!Block)
    return false;
  DynTypedNode Node = DynTypedNode::create(*E);
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return false;
    Node = Parents[0];
    const auto *S = Node.get<Stmt>();
    if (!S)
      continue; // a local variable's initialiser
    if (S == Block)
      return true;
    if (isa<IfStmt>(S) || isa<SwitchStmt>(S) || isa<ForStmt>(S) ||
        isa<CXXForRangeStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
        isa<ConditionalOperator>(S) || isa<LambdaExpr>(S) || isa<CXXTryStmt>(S))
      return false;
    if (const auto *Op = dyn_cast<BinaryOperator>(S))
      if (Op->isLogicalOp())
        return false;
  }
  return false;
}
} // namespace

std::optional<DeviceCopy> asDeviceCopy(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(E);
  const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
  if (!MD || !api::isTensorMethod(MD) || !MD->getDeclName().isIdentifier())
    return std::nullopt;
  llvm::StringRef Name = MD->getName();
  const Expr *Object = Call->getImplicitObjectArgument();
  if (Name == "to" && Call->getNumArgs() >= 1) {
    // x.to(device) converts the device to TensorOptions: keep the device.
    const Expr *Target = Call->getArg(0);
    if (const Expr *Written = Target->IgnoreUnlessSpelledInSource();
        Written && api::isDeviceLike(Written->getType()))
      Target = Written;
    QualType T = Target->getType();
    if (!api::isDevice(T) && !api::isDeviceType(T) &&
        !api::isTensorOptions(T) && !api::isTensor(T))
      return std::nullopt;
    const Expr *DType = nullptr;
    if (Call->getNumArgs() >= 2 && !isa<CXXDefaultArgExpr>(Call->getArg(1)) &&
        api::isScalarType(Call->getArg(1)->getType()))
      DType = Call->getArg(1);
    return DeviceCopy{DeviceCopy::Form::To,      Call, Object, Target,
                      nonBlockingArgument(Call), DType};
  }
  if (Name == "cuda")
    return DeviceCopy{DeviceCopy::Form::Cuda,    Call,   Object, nullptr,
                      nonBlockingArgument(Call), nullptr};
  if (Name == "copy_" && Call->getNumArgs() >= 1 &&
      api::isTensor(Call->getArg(0)->getType()))
    return DeviceCopy{
        DeviceCopy::Form::CopyInto, Call,   Call->getArg(0), Object,
        nonBlockingArgument(Call),  nullptr};
  return std::nullopt;
}

const Expr *followedTensor(const DeviceCopy &Copy) {
  if (Copy.How != DeviceCopy::Form::To || !Copy.Target)
    return nullptr;
  const Expr *Target = api::ignoreWrappers(Copy.Target);
  if (api::isTensor(Target->getType()))
    return Target;
  const auto *Read = dyn_cast<CXXMemberCallExpr>(Target);
  const CXXMethodDecl *MD = Read ? Read->getMethodDecl() : nullptr;
  if (api::isTensorMethod(MD, "device") || api::isTensorMethod(MD, "options"))
    return api::ignoreWrappers(Read->getImplicitObjectArgument());
  return nullptr;
}

FactSet destinationOf(const DeviceCopy &Copy, DeviceFlow &Flow) {
  if (Copy.How == DeviceCopy::Form::CopyInto)
    return Flow.devicesOf(Copy.Target);
  return Flow.devicesOf(Copy.Call);
}

std::optional<DeviceCopy> copyToAccelerator(const CXXMemberCallExpr *Call,
                                            DeviceFlow &Flow,
                                            FactSet &Destination) {
  if (Flow.index().inTemplatePattern(Call) || !Flow.reachable(Call))
    return std::nullopt;
  std::optional<DeviceCopy> Copy = asDeviceCopy(Call);
  if (!Copy)
    return std::nullopt;
  Destination = destinationOf(*Copy, Flow);
  if (!reachesAccelerator(Destination))
    return std::nullopt;
  return Copy;
}

bool reachesAccelerator(const FactSet &Destination) {
  for (const DeviceFact &F : Destination)
    if (F.isKnown() && F.Kind != api::DeviceKind::CPU)
      return true;
  return false;
}

bool isNonBlocking(const DeviceCopy &Copy, ASTContext &Ctx) {
  return Copy.NonBlocking &&
         api::constantBool(Copy.NonBlocking, Ctx).value_or(false);
}

std::optional<FactSet> pageableSource(const DeviceCopy &Copy,
                                      DeviceFlow &Flow) {
  FactSet Source = Flow.devicesOf(Copy.Source);
  if (Source.empty())
    return std::nullopt;
  for (const DeviceFact &F : Source) {
    if (!F.isKnown() || F.Kind != api::DeviceKind::CPU || F.Pinned)
      return std::nullopt;
    if (F.How != Provenance::Factory && F.How != Provenance::FromBlob &&
        F.How != Provenance::DataLoader && F.How != Provenance::Loaded)
      return std::nullopt;
  }
  return Source;
}

std::optional<CreatedThenMoved> createdThenMoved(const DeviceCopy &Copy,
                                                 DeviceFlow &Flow) {
  if (Copy.How == DeviceCopy::Form::CopyInto)
    return std::nullopt;
  ASTContext &Ctx = Flow.astContext();
  CreatedThenMoved Result{freshFactory(Copy.Source)};

  if (!Result.Factory) {
    const auto *Ref =
        dyn_cast_or_null<DeclRefExpr>(api::ignoreWrappers(Copy.Source));
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    const FunctionDecl *FD = Flow.index().enclosingFunction(Copy.Call);
    if (!Var || isa<ParmVarDecl>(Var) || !Var->hasLocalStorage() ||
        Var->getType()->isReferenceType() || !FD || !FD->getBody() ||
        Var->getParentFunctionOrMethod() != FD)
      return std::nullopt;
    Result.Factory = freshFactory(Var->getInit());
    if (!Result.Factory)
      return std::nullopt;
    Result.Var = Var;
    if (!unconditionallyAfter(Copy.Call, Var, Ctx))
      return std::nullopt;
    const CXXOperatorCallExpr *Assign = reassignment(Copy.Call, Var, Ctx);
    Result.Reassignment = Assign;

    const SourceManager &SM = Ctx.getSourceManager();
    for (const DeclRefExpr *Other : referencesTo(Var, FD->getBody())) {
      if (Other == Ref)
        continue;
      if (Assign && Other == Assign->getArg(0)->IgnoreParenImpCasts())
        continue;
      // After `x = x.to(d)`, x is the moved tensor.
      if (Assign && SM.isBeforeInTranslationUnit(Assign->getEndLoc(),
                                                 Other->getBeginLoc()))
        continue;
      return std::nullopt;
    }
  }

  FactSet Created = Flow.devicesOf(Result.Factory);
  if (Created.empty())
    return std::nullopt;
  for (const DeviceFact &F : Created)
    if (!F.isKnown() || F.Kind != api::DeviceKind::CPU ||
        F.How != Provenance::Factory || F.Pinned)
      return std::nullopt;
  return Result;
}

} // namespace torchlint
