#include "analysis/GradMode.h"

#include "analysis/ModuleModes.h"

#include "analysis/DeviceFlow.h"
#include "analysis/GradModeFlow.h"
#include "analysis/Loops.h"
#include "analysis/StepContext.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace torchlint {

namespace {
constexpr unsigned MaxCallDepth = 3;

bool isGradModeClass(const CXXRecordDecl *RD, llvm::StringRef Name) {
  return RD && RD->getDeclName().isIdentifier() && RD->getName() == Name &&
         api::isInTorchNamespace(RD);
}

const CXXConstructExpr *constructionOf(const VarDecl *Var) {
  return dyn_cast_or_null<CXXConstructExpr>(
      api::ignoreWrappers(Var->getInit()));
}

/// The variable is constructed with a first argument written out.
bool hasArgument(const VarDecl *Var) {
  const CXXConstructExpr *Construct = constructionOf(Var);
  return Construct && Construct->getNumArgs() > 0 &&
         !isa<CXXDefaultArgExpr>(Construct->getArg(0));
}

/// The constructor's first argument, when it is written and constant.
std::optional<bool> firstArgument(const VarDecl *Var, ASTContext &Ctx) {
  if (!hasArgument(Var))
    return std::nullopt;
  return api::constantBool(constructionOf(Var)->getArg(0), Ctx);
}

} // namespace

std::optional<std::optional<bool>> gradModeSwitch(const Stmt *S,
                                                  ASTContext &Ctx) {
  const auto *Call = dyn_cast_or_null<CallExpr>(S);
  const auto *MD =
      Call ? dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee()) : nullptr;
  if (!MD || !MD->getDeclName().isIdentifier() ||
      MD->getName() != "set_enabled" ||
      !isGradModeClass(MD->getParent(), "GradMode") || Call->getNumArgs() != 1)
    return std::nullopt;
  return api::constantBool(Call->getArg(0), Ctx);
}

namespace {
/// The variable a range-for declares over a module's parameters:
/// `for (auto &p : model->parameters())`, or over a variable that holds
/// them (`auto params = model->named_parameters(); for (auto p : params)`).
bool walksParameters(const VarDecl *Var, ASTContext &Ctx) {
  const CXXForRangeStmt *Loop = rangeForDeclaring(Var, Ctx);
  if (!Loop)
    return false;
  const Expr *Range = api::ignoreWrappers(Loop->getRangeInit());
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Range))
    if (const auto *Held = dyn_cast<VarDecl>(Ref->getDecl()))
      Range = Held->hasInit() ? Held->getInit() : nullptr;
  return api::parametersOwner(Range) != nullptr;
}

/// A parameter of a module: the variable of a loop over its parameters, or
/// the value of one of its named parameters (`item.value()`).
bool isModuleParameter(const Expr *E, ASTContext &Ctx) {
  E = api::ignoreWrappers(E);
  if (const auto *Value = dyn_cast_or_null<CXXMemberCallExpr>(E);
      Value && Value->getMethodDecl() &&
      Value->getMethodDecl()->getDeclName().isIdentifier() &&
      Value->getMethodDecl()->getName() == "value")
    E = api::ignoreWrappers(Value->getImplicitObjectArgument());
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && walksParameters(Var, Ctx);
}

bool needsGradients(const CallExpr *Call, ASTContext &Ctx) {
  if (api::isBackwardCall(Call) || api::isOptimizerCall(Call))
    return true;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *MD = Member ? Member->getMethodDecl() : nullptr;
  if (!MD || !MD->getDeclName().isIdentifier() || !api::isTensorMethod(MD))
    return false;
  llvm::StringRef Name = MD->getName();
  // Freezing or thawing a module's parameters (between epochs, say) sets
  // what the next graph records; it reads no graph.
  if (Name == "requires_grad_" || Name == "set_requires_grad")
    return !isModuleParameter(Member->getImplicitObjectArgument(), Ctx);
  return Name == "grad" || Name == "mutable_grad" || Name == "retain_grad";
}

class GradientUseFinder : public RecursiveASTVisitor<GradientUseFinder> {
public:
  GradientUseFinder(DeviceFlow &Flow, unsigned Depth,
                    llvm::SmallPtrSetImpl<const FunctionDecl *> &Visited)
      : Flow(Flow), Depth(Depth), Visited(Visited) {}

  bool VisitCallExpr(CallExpr *Call) {
    if (needsGradients(Call, Flow.astContext())) {
      Found = Call;
      return false;
    }
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Definition = nullptr;
    if (Depth < MaxCallDepth && Callee && Callee->hasBody(Definition) &&
        !api::isInTorchNamespace(Definition) &&
        Flow.index().enclosingFunction(Definition->getBody()) &&
        Visited.insert(Definition).second) {
      GradientUseFinder Inner(Flow, Depth + 1, Visited);
      Inner.TraverseStmt(Definition->getBody());
      if (Inner.Found) {
        Found = Call;
        return false;
      }
    }
    return true;
  }

  const Expr *Found = nullptr;

private:
  DeviceFlow &Flow;
  unsigned Depth;
  llvm::SmallPtrSetImpl<const FunctionDecl *> &Visited;
};

class TrainingFinder : public RecursiveASTVisitor<TrainingFinder> {
public:
  explicit TrainingFinder(ASTContext &Ctx) : Ctx(Ctx) {}
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    if (switchesToEvaluation(Call, Ctx) == false) {
      Found = Call;
      return false;
    }
    return true;
  }
  const CXXMemberCallExpr *Found = nullptr;

private:
  ASTContext &Ctx;
};

/// Whether a local, a parameter or something that outlives the function is
/// written: the declaration at the root of a member, subscript or deref
/// chain, or `this` (null).
const ValueDecl *writtenRoot(const Expr *E, bool &ThroughThis) {
  ThroughThis = false;
  for (unsigned Steps = 0; E && Steps < 32; ++Steps) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return Ref->getDecl();
    if (const auto *Member = dyn_cast<MemberExpr>(E)) {
      if (isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts())) {
        ThroughThis = true;
        return nullptr;
      }
      E = Member->getBase();
    } else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E)) {
      E = Subscript->getBase();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Op->getNumArgs() == 0)
        return nullptr;
      E = Op->getArg(0);
    } else if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
      E = Unary->getSubExpr();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

/// Finds writes of tensors into what outlives the function.
class EscapeFinder : public RecursiveASTVisitor<EscapeFinder> {
public:
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitBinaryOperator(BinaryOperator *Op) {
    if (Op->isAssignmentOp())
      written(Op->getLHS());
    return !Found;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->isAssignmentOp() && Op->getNumArgs() > 0)
      written(Op->getArg(0));
    return !Found;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    const CXXMethodDecl *MD = Call->getMethodDecl();
    // push_back, insert, emplace and the like on a container.
    if (MD && !MD->isConst() && !api::isInTorchNamespace(MD))
      written(Call->getImplicitObjectArgument());
    return !Found;
  }
  bool Found = false;

private:
  void written(const Expr *Target) {
    if (!Target || !mayHoldTensor(Target->getType()))
      return;
    bool ThroughThis = false;
    const ValueDecl *Root = writtenRoot(Target, ThroughThis);
    if (ThroughThis) {
      Found = true;
      return;
    }
    const auto *Var = dyn_cast_or_null<VarDecl>(Root);
    if (!Var)
      return;
    if (Var->hasGlobalStorage() || Var->getType()->isReferenceType() ||
        (isa<ParmVarDecl>(Var) && Var->getType()->isPointerType()))
      Found = true;
  }
};

bool mayHoldTensorAt(QualType T, unsigned Depth) {
  T = api::bareType(T);
  if (T.isNull() || Depth > 4)
    return false;
  if (const auto *Pointer = T->getAs<PointerType>())
    return mayHoldTensorAt(Pointer->getPointeeType(), Depth + 1);
  if (const auto *Array = dyn_cast<ArrayType>(T.getTypePtr()))
    return mayHoldTensorAt(Array->getElementType(), Depth + 1);
  // A TorchScript value (an IValue, a tuple of them) carries tensors too.
  if (api::isTensor(T) || api::isScriptValue(T))
    return true;
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || api::isInTorchNamespace(RD) || api::moduleClassOf(T))
    return false;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
      if (Arg.getKind() == TemplateArgument::Type &&
          mayHoldTensorAt(Arg.getAsType(), Depth + 1))
        return true;
  if (RD->isInStdNamespace() || !RD->hasDefinition())
    return false;
  for (const FieldDecl *Field : RD->fields())
    if (mayHoldTensorAt(Field->getType(), Depth + 1))
      return true;
  return false;
}

bool callersDisableGradients(const FunctionDecl *FD, DeviceFlow &Flow,
                             GradModeFlow &Recording, StepContext *Steps,
                             unsigned Depth, std::optional<bool> &Result) {
  if (Flow.index().lambdaOrigin(FD))
    return false;
  std::optional<llvm::ArrayRef<DeviceFlow::CallSite>> Sites =
      Flow.index().callSites(FD->getCanonicalDecl());
  if (!Sites)
    return false;
  if (Sites->empty()) {
    std::optional<bool> Elsewhere =
        Steps ? Steps->gradOffInCallersElsewhere(FD) : std::nullopt;
    Result = Elsewhere.value_or(false);
    return true;
  }
  for (const DeviceFlow::CallSite &Site : *Sites) {
    if (Recording.before(Site.Call).State == GradSetting::Disabled)
      continue;
    std::optional<bool> Outer;
    if (Depth < MaxCallDepth && Site.Caller &&
        callersDisableGradients(Site.Caller, Flow, Recording, Steps, Depth + 1,
                                Outer) &&
        Outer == true)
      continue;
    Result = false;
    return true;
  }
  Result = true;
  return true;
}
} // namespace

GradSetting::Kind guardEffect(const VarDecl *Var, ASTContext &Ctx) {
  if (!Var || !Var->hasLocalStorage())
    return GradSetting::Default;
  const CXXRecordDecl *RD = api::bareType(Var->getType())->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return GradSetting::Default;
  // A value decided at run time is as deliberate as `true`.
  auto Recording = [](std::optional<bool> On) {
    return On == false ? GradSetting::Disabled : GradSetting::Enabled;
  };
  if (isGradModeClass(RD, "InferenceMode")) {
    // InferenceMode(enabled = true) turns recording off when enabled.
    if (!hasArgument(Var))
      return GradSetting::Disabled;
    std::optional<bool> Enabled = firstArgument(Var, Ctx);
    return Recording(Enabled ? std::optional<bool>(!*Enabled) : std::nullopt);
  }
  if (isGradModeClass(RD, "AutoGradMode"))
    return Recording(firstArgument(Var, Ctx));
  if (isGradModeClass(RD, "NoGradGuard"))
    return GradSetting::Disabled;
  bool Derived = !RD->forallBases([](const CXXRecordDecl *Base) {
    return !isGradModeClass(Base, "NoGradGuard");
  });
  return Derived ? GradSetting::Disabled : GradSetting::Default;
}

std::optional<bool> gradDisabledInCallers(const FunctionDecl *FD,
                                          DeviceFlow &Flow,
                                          GradModeFlow &Recording,
                                          StepContext *Steps) {
  std::optional<bool> Result;
  if (!FD || !callersDisableGradients(FD, Flow, Recording, Steps, 0, Result))
    return std::nullopt;
  return Result;
}

const Expr *gradientUseIn(const Stmt *S, DeviceFlow &Flow) {
  if (!S)
    return nullptr;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Visited;
  GradientUseFinder Finder(Flow, 0, Visited);
  Finder.TraverseStmt(const_cast<Stmt *>(S));
  return Finder.Found;
}

const CXXMemberCallExpr *trainingIn(const Stmt *Root, ASTContext &Ctx) {
  if (!Root)
    return nullptr;
  TrainingFinder Finder(Ctx);
  Finder.TraverseStmt(const_cast<Stmt *>(Root));
  return Finder.Found;
}

bool mayHoldTensor(QualType T) { return mayHoldTensorAt(T, 0); }

bool tensorsCanEscape(const FunctionDecl *FD) {
  if (!FD || !FD->getBody())
    return true;
  if (mayHoldTensor(FD->getReturnType()))
    return true;
  for (const ParmVarDecl *Param : FD->parameters()) {
    QualType T = Param->getType();
    QualType Target;
    if (const auto *Ref = T->getAs<ReferenceType>())
      Target = Ref->getPointeeType();
    else if (const auto *Pointer = T->getAs<PointerType>())
      Target = Pointer->getPointeeType();
    if (!Target.isNull() && !Target.isConstQualified() && mayHoldTensor(Target))
      return true;
  }
  EscapeFinder Finder;
  Finder.TraverseStmt(FD->getBody());
  return Finder.Found;
}

} // namespace torchlint
