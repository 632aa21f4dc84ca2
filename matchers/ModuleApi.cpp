//===--- ModuleApi.cpp - libtorch's modules, loaders and module calls -----===//
//
// What a module is (its holder, its class, whether it has parameters or is a
// loss), data loaders and examples, replication, optimizers, and the calls
// that run a module with their inputs.
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

/// The first template argument of a specialisation, as a record.
static const CXXRecordDecl *firstTemplateArgRecord(const CXXRecordDecl *RD) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
  if (!Spec || Spec->getTemplateArgs().size() < 1)
    return nullptr;
  const TemplateArgument &Arg = Spec->getTemplateArgs()[0];
  if (Arg.getKind() != TemplateArgument::Type)
    return nullptr;
  return recordOf(Arg.getAsType());
}

/// The ModuleHolder<Impl> base of RD (RD itself or a TORCH_MODULE subclass).
static const CXXRecordDecl *moduleHolderImpl(const CXXRecordDecl *RD) {
  if (!RD)
    return nullptr;
  if (hasQualifiedName(RD, "torch::nn::ModuleHolder"))
    return firstTemplateArgRecord(RD);
  const CXXRecordDecl *Def = RD->getDefinition();
  if (!Def)
    return nullptr;
  for (const CXXBaseSpecifier &Base : Def->bases())
    if (const CXXRecordDecl *Impl = moduleHolderImpl(recordOf(Base.getType())))
      return Impl;
  return nullptr;
}

const CXXRecordDecl *moduleClassOf(QualType T) {
  T = bareType(T);
  if (T.isNull())
    return nullptr;
  if (T->isPointerType())
    T = bareType(T->getPointeeType());
  const CXXRecordDecl *RD = recordOf(T);
  if (!RD)
    return nullptr;
  if (isModuleClass(RD) || isScriptModuleClass(RD))
    return RD;
  if (const CXXRecordDecl *Impl = moduleHolderImpl(RD))
    return isModuleClass(Impl) ? Impl : nullptr;
  if (hasQualifiedName(RD, "std::shared_ptr") ||
      hasQualifiedName(RD, "std::unique_ptr")) {
    const CXXRecordDecl *Pointee = firstTemplateArgRecord(RD);
    return isModuleClass(Pointee) || isScriptModuleClass(Pointee) ? Pointee
                                                                  : nullptr;
  }
  return nullptr;
}

bool isLossModule(const CXXRecordDecl *Impl) {
  if (!Impl || !Impl->getDeclName().isIdentifier())
    return false;
  llvm::StringRef Name = Impl->getName();
  return isInTorchNamespace(Impl) &&
         (Name.ends_with("LossImpl") || Name == "CrossEntropyLossImpl");
}

namespace {
/// Finds, in a class's method bodies and member initialisers, calls to the
/// named methods or uses of a device.
class ClassScanner : public RecursiveASTVisitor<ClassScanner> {
public:
  explicit ClassScanner(bool LookForDevices) : LookForDevices(LookForDevices) {}

  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    const CXXMethodDecl *MD = Call->getMethodDecl();
    if (!MD || !MD->getDeclName().isIdentifier())
      return true;
    llvm::StringRef Name = MD->getName();
    if (!LookForDevices &&
        (Name == "register_parameter" || Name == "register_buffer" ||
         Name == "register_module"))
      Found = true;
    if (LookForDevices && isTensorMethod(MD) &&
        (Name == "cuda" || Name == "pin_memory"))
      Found = true;
    if (LookForDevices && Name == "pinned_memory")
      Found = true;
    return !Found;
  }
  bool VisitExpr(Expr *E) {
    if (LookForDevices && !E->isTypeDependent() &&
        (isDevice(E->getType()) || isDeviceType(E->getType())))
      Found = true;
    return !Found;
  }

  bool scan(const CXXRecordDecl *RD) {
    for (const CXXMethodDecl *MD : RD->methods()) {
      const FunctionDecl *Definition = nullptr;
      if (MD->hasBody(Definition))
        TraverseDecl(const_cast<FunctionDecl *>(Definition));
      if (Found)
        return true;
    }
    for (const FieldDecl *Field : RD->fields())
      if (Field->hasInClassInitializer())
        TraverseStmt(const_cast<Expr *>(Field->getInClassInitializer()));
    return Found;
  }

private:
  bool LookForDevices;
  bool Found = false;
};

bool isModuleBaseTemplate(const CXXRecordDecl *RD) {
  return hasQualifiedName(RD, "torch::nn::Module") ||
         hasQualifiedName(RD, "torch::nn::Cloneable");
}
} // namespace

static bool isParameterFree(const CXXRecordDecl *Impl, unsigned Depth);

const Expr *parametersOwner(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(ignoreWrappers(E));
  const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() ||
      !llvm::is_contained({"parameters", "named_parameters", "buffers"},
                          MD->getName()))
    return nullptr;
  const Expr *Object = withoutArrow(Call->getImplicitObjectArgument());
  return moduleClassOf(Object->getType()) ? Object : nullptr;
}

bool isParameterFree(const CXXRecordDecl *Impl) {
  return isParameterFree(Impl, 0);
}

static bool isParameterFree(const CXXRecordDecl *Impl, unsigned Depth) {
  if (!Impl || !Impl->getDeclName().isIdentifier() || Depth > 8)
    return false;
  if (isInTorchNamespace(Impl)) {
    llvm::StringRef Name = Impl->getName();
    Name.consume_back("Impl");
    if (Name.ends_with("Loss") || Name.ends_with("Pool1d") ||
        Name.ends_with("Pool2d") || Name.ends_with("Pool3d") ||
        Name.ends_with("Dropout") || Name.ends_with("Dropout2d") ||
        Name.ends_with("Dropout3d") || Name.starts_with("ReflectionPad") ||
        Name.starts_with("ReplicationPad") || Name.starts_with("ConstantPad") ||
        Name.starts_with("ZeroPad"))
      return true;
    return llvm::StringSwitch<bool>(Name)
        .Cases("ReLU", "ReLU6", "LeakyReLU", "RReLU", "ELU", "CELU", true)
        .Cases("SELU", "GELU", "SiLU", "Mish", "Sigmoid", "LogSigmoid", true)
        .Cases("Tanh", "Softmax", "LogSoftmax", "Softmin", "Softmax2d", true)
        .Cases("Softplus", "Softsign", "Hardtanh", "Hardshrink", true)
        .Cases("Softshrink", "Tanhshrink", "Threshold", "GLU", "Hardswish",
               true)
        .Cases("Flatten", "Unflatten", "Identity", "Upsample", "Fold", true)
        .Cases("Unfold", "PixelShuffle", "PixelUnshuffle", "CosineSimilarity",
               true)
        .Cases("PairwiseDistance", "ChannelShuffle", "LocalResponseNorm", true)
        .Default(false);
  }
  const CXXRecordDecl *Def = Impl->getDefinition();
  if (!Def || !isModuleClass(Def))
    return false;
  // A member module that holds no parameters (a loss made of losses) adds
  // none, registered or not.
  for (const FieldDecl *Field : Def->fields()) {
    if (isTensor(Field->getType()))
      return false;
    if (const CXXRecordDecl *Member = moduleClassOf(Field->getType()))
      if (Member == Def || !isParameterFree(Member, Depth + 1))
        return false;
  }
  for (const CXXBaseSpecifier &Base : Def->bases()) {
    const CXXRecordDecl *BaseClass = recordOf(Base.getType());
    if (BaseClass && !isModuleBaseTemplate(BaseClass) &&
        !isParameterFree(BaseClass, Depth + 1))
      return false;
  }
  return !ClassScanner(/*LookForDevices=*/false).scan(Def);
}

namespace {
/// Finds, in a module class's constructors and methods, a member assigned
/// what a registration returns (`w = register_parameter("w", ...)`, or the
/// member initialiser `w(register_buffer(...))`).
class RegistrationFinder : public RecursiveASTVisitor<RegistrationFinder> {
public:
  explicit RegistrationFinder(const FieldDecl *Member) : Member(Member) {}

  bool VisitBinaryOperator(BinaryOperator *Assign) {
    if (Assign->isAssignmentOp())
      check(Assign->getLHS(), Assign->getRHS());
    return !Found;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Assign) {
    if (Assign->getOperator() == OO_Equal && Assign->getNumArgs() == 2)
      check(Assign->getArg(0), Assign->getArg(1));
    return !Found;
  }

  bool find(const CXXRecordDecl *Class) {
    for (const CXXMethodDecl *MD : Class->methods()) {
      const FunctionDecl *Definition = nullptr;
      if (!MD->hasBody(Definition))
        continue;
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Definition))
        for (const CXXCtorInitializer *Init : Ctor->inits())
          if (Init->getMember() == Member && registers(Init->getInit()))
            return true;
      TraverseStmt(Definition->getBody());
      if (Found)
        return true;
    }
    return false;
  }

private:
  void check(const Expr *Target, const Expr *Value) {
    const auto *Ref = dyn_cast<MemberExpr>(Target->IgnoreParenImpCasts());
    if (Ref && Ref->getMemberDecl() == Member && registers(Value))
      Found = true;
  }
  static bool registers(const Expr *Value) {
    const auto *Call = dyn_cast_or_null<CallExpr>(ignoreWrappers(Value));
    return Call && !registrationName(Call).empty();
  }

  const FieldDecl *Member;
  bool Found = false;
};
} // namespace

bool movesWithItsModule(const FieldDecl *Member) {
  const auto *Class = dyn_cast_or_null<CXXRecordDecl>(Member->getParent());
  if (!Class || !isModuleClass(Class))
    return false;
  if (moduleClassOf(Member->getType()))
    return true;
  if (!isTensor(Member->getType()))
    return false;
  // libtorch's own modules register every tensor they hold.
  if (isInTorchNamespace(Class))
    return true;
  return RegistrationFinder(Member).find(Class);
}

/// User classes among the template arguments of T, at any depth.
static void userClassesIn(QualType T, unsigned Depth,
                          llvm::SmallVectorImpl<const CXXRecordDecl *> &Out) {
  const CXXRecordDecl *RD = recordOf(T);
  if (!RD || Depth > 6)
    return;
  if (!isInTorchNamespace(RD) && !RD->isInStdNamespace())
    Out.push_back(RD);
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
      if (Arg.getKind() == TemplateArgument::Type)
        userClassesIn(Arg.getAsType(), Depth + 1, Out);
}

bool datasetHandlesDevices(QualType LoaderType) {
  llvm::SmallVector<const CXXRecordDecl *, 2> Classes;
  userClassesIn(LoaderType, 0, Classes);
  for (const CXXRecordDecl *RD : Classes)
    if (const CXXRecordDecl *Def = RD->getDefinition())
      if (ClassScanner(/*LookForDevices=*/true).scan(Def))
        return true;
  return false;
}

bool isExample(QualType T) { return isRecordNamed(T, "torch::data::Example"); }

bool isDataLoaderValue(QualType T) {
  const CXXRecordDecl *RD = recordOf(T);
  if (!RD)
    return false;
  if (isExample(T) || hasQualifiedName(RD, "torch::data::Iterator") ||
      hasQualifiedName(RD, "torch::data::StatelessDataLoader") ||
      hasQualifiedName(RD, "torch::data::StatefulDataLoader") ||
      hasQualifiedName(RD, "torch::data::DataLoaderBase"))
    return true;
  if (hasQualifiedName(RD, "std::vector") ||
      hasQualifiedName(RD, "std::optional") ||
      hasQualifiedName(RD, "c10::optional") ||
      hasQualifiedName(RD, "std::unique_ptr")) {
    const CXXRecordDecl *Elem = firstTemplateArgRecord(RD);
    return Elem && isDataLoaderValue(QualType(Elem->getTypeForDecl(), 0));
  }
  return false;
}

bool isBackwardCall(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return isTensorMethod(MD, "backward");
  return hasQualifiedName(FD, "torch::autograd::backward") ||
         hasQualifiedName(FD, "torch::autograd::grad");
}

Replication replicationOf(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || Call->getNumArgs() < 2)
    return Replication::None;
  if (hasQualifiedName(FD, "torch::nn::parallel::data_parallel"))
    return Replication::DataParallel;
  if (hasQualifiedName(FD, "torch::nn::parallel::replicate"))
    return Replication::Replicate;
  return Replication::None;
}

namespace {
/// The arguments of a construction that the code writes, without the
/// defaulted ones (a vector's allocator).
llvm::SmallVector<const Expr *, 2> writtenArguments(const CXXConstructExpr *E) {
  llvm::SmallVector<const Expr *, 2> Written;
  for (const Expr *Arg : E->arguments())
    if (!isa<CXXDefaultArgExpr>(Arg))
      Written.push_back(Arg);
  return Written;
}
} // namespace

DeviceCount replicationDevices(const CallExpr *Call) {
  unsigned Index = replicationOf(Call) == Replication::Replicate ? 1 : 2;
  if (Call->getNumArgs() <= Index ||
      isa<CXXDefaultArgExpr>(Call->getArg(Index)))
    return DeviceCount::AllVisible;
  // The list as written, through the optional's and the vector's
  // constructors: `std::vector<torch::Device>{device}`, `(1, device)`, or a
  // const list declared beside the call.
  const Expr *E = Call->getArg(Index);
  bool ThroughVariable = false;
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = Temp->getSubExpr();
    } else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = Bind->getSubExpr();
    } else if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
    } else if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E)) {
      E = List->getSubExpr();
    } else if (const auto *Init = dyn_cast<InitListExpr>(E)) {
      return Init->getNumInits() == 1 ? DeviceCount::One : DeviceCount::Several;
    } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      llvm::SmallVector<const Expr *, 2> Written = writtenArguments(Construct);
      if (Written.size() == 2)
        if (const auto *Count =
                dyn_cast<IntegerLiteral>(Written[0]->IgnoreImplicit()))
          return Count->getValue() == 1 ? DeviceCount::One
                                        : DeviceCount::Several;
      E = Written.size() == 1 ? Written[0] : nullptr;
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      E = Var && !ThroughVariable && Var->hasLocalStorage() &&
                  Var->getType().isConstQualified()
              ? Var->getInit()
              : nullptr;
      ThroughVariable = true;
    } else {
      break;
    }
  }
  return DeviceCount::Several;
}

bool isCloneableClass(const CXXRecordDecl *RD) {
  RD = RD ? RD->getDefinition() : nullptr;
  if (!RD)
    return false;
  bool Found = false;
  RD->forallBases([&](const CXXRecordDecl *Base) {
    Found = hasQualifiedName(Base, "torch::nn::Cloneable");
    return !Found;
  });
  return Found;
}

bool isOptimizerClass(const CXXRecordDecl *RD) {
  RD = RD ? RD->getDefinition() : nullptr;
  if (!RD)
    return false;
  if (hasQualifiedName(RD, "torch::optim::Optimizer"))
    return true;
  bool Found = false;
  RD->forallBases([&](const CXXRecordDecl *Base) {
    Found = hasQualifiedName(Base, "torch::optim::Optimizer");
    return !Found;
  });
  return Found;
}

bool isOptimizerCall(const CallExpr *Call) {
  const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *MD = Member ? Member->getMethodDecl() : nullptr;
  if (!MD || !MD->getDeclName().isIdentifier())
    return false;
  return (MD->getName() == "step" || MD->getName() == "zero_grad") &&
         isInTorchNamespace(MD->getParent());
}

const Expr *withoutArrow(const Expr *E) {
  const Expr *Bare = ignoreWrappers(E);
  // The holder or pointer itself, not the base class of std::shared_ptr
  // that declares operator->.
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Bare))
    if (Op->getOperator() == OO_Arrow && Op->getNumArgs() >= 1)
      return ignoreWrappers(Op->getArg(0));
  return E;
}

const Expr *calledModule(const Expr *Call) {
  Call = ignoreWrappers(Call);
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Call)) {
    if (Op->getOperator() != OO_Call || Op->getNumArgs() < 1)
      return nullptr;
    const Expr *Callee = Op->getArg(0);
    if (moduleClassOf(Callee->getType()))
      return Callee;
    // module.get_method("forward")(inputs): a TorchScript method, run.
    const auto *Getter =
        dyn_cast_or_null<CXXMemberCallExpr>(ignoreWrappers(Callee));
    const CXXMethodDecl *GetterDecl =
        Getter ? Getter->getMethodDecl() : nullptr;
    if (GetterDecl && GetterDecl->getIdentifier() &&
        GetterDecl->getName() == "get_method" &&
        isRecordNamed(Callee->getType(), "torch::jit::Method")) {
      const Expr *Object =
          ignoreWrappers(withoutArrow(Getter->getImplicitObjectArgument()));
      if (moduleClassOf(Object->getType()))
        return Object;
    }
    return nullptr;
  }
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    if (!MD || !MD->getDeclName().isIdentifier())
      return nullptr;
    const Expr *Object = withoutArrow(Member->getImplicitObjectArgument());
    // AnyModule holds a module of a type known only where it was stored (a
    // projection, a criterion chosen by configuration): its forward runs it.
    if (MD->getName() == "forward")
      return isModuleClass(MD->getParent()) ||
                     isScriptModuleClass(MD->getParent()) ||
                     hasQualifiedName(MD->getParent(), "torch::nn::AnyModule")
                 ? Object
                 : nullptr;
    // run_method is torch::jit::Object's, which a TorchScript module is.
    if (MD->getName() == "run_method" &&
        hasQualifiedName(MD->getParent(), "torch::jit::Object") &&
        moduleClassOf(ignoreWrappers(Object)->getType()))
      return ignoreWrappers(Object);
    return nullptr;
  }
  return nullptr;
}

bool isModuleCall(const Expr *E) { return calledModule(E) != nullptr; }

unsigned moduleInputIndex(const Expr *ModuleCall) {
  if (isa<CXXOperatorCallExpr>(ModuleCall))
    return 1;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(ModuleCall);
  const CXXMethodDecl *MD = Member ? Member->getMethodDecl() : nullptr;
  return MD && MD->getIdentifier() && MD->getName() == "run_method" ? 1 : 0;
}

/// t for the c10::IValue made from it.
static const Expr *withoutScriptValueConversion(const Expr *E) {
  E = ignoreWrappers(E);
  while (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E)) {
    if (Construct->getNumArgs() != 1 || !isScriptValue(Construct->getType()) ||
        !carriesTensors(Construct->getArg(0)->getType()))
      break;
    E = ignoreWrappers(Construct->getArg(0));
  }
  return E;
}

llvm::SmallVector<const Expr *, 2> moduleInputs(const Expr *ModuleCall) {
  llvm::SmallVector<const Expr *, 2> Inputs;
  const auto *Call = dyn_cast_or_null<CallExpr>(ModuleCall);
  const Expr *Module = calledModule(ModuleCall);
  if (!Call || !Module)
    return Inputs;
  // A module of the program takes tensors; a TorchScript module, values.
  bool Script = isScriptModuleClass(moduleClassOf(Module->getType()));
  for (unsigned I = moduleInputIndex(ModuleCall); I < Call->getNumArgs(); ++I) {
    const Expr *Arg = Call->getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg) ||
        !(Script ? carriesTensors(Arg->getType()) : isTensor(Arg->getType())))
      continue;
    // std::vector<IValue>{...}: the list, then the allocator's default.
    const auto *Built = dyn_cast_or_null<CXXConstructExpr>(ignoreWrappers(Arg));
    const auto *Std = Built && Built->getNumArgs() >= 1
                          ? dyn_cast<CXXStdInitializerListExpr>(
                                ignoreWrappers(Built->getArg(0)))
                          : nullptr;
    const auto *List =
        Std ? dyn_cast<InitListExpr>(ignoreWrappers(Std->getSubExpr()))
            : nullptr;
    if (!List) {
      Inputs.push_back(Arg);
      continue;
    }
    for (const Expr *Element : List->inits()) {
      Element = withoutScriptValueConversion(Element);
      if (Element && carriesTensors(Element->getType()))
        Inputs.push_back(Element);
    }
  }
  return Inputs;
}

const Expr *moduleInput(const Expr *ModuleCall) {
  const auto *Call = dyn_cast_or_null<CallExpr>(ModuleCall);
  unsigned Index = moduleInputIndex(ModuleCall);
  return Call && Call->getNumArgs() > Index ? Call->getArg(Index) : nullptr;
}

llvm::StringRef registrationName(const CallExpr *Call) {
  const auto *Method =
      dyn_cast_or_null<CXXMethodDecl>(Call ? Call->getDirectCallee() : nullptr);
  for (llvm::StringRef Name :
       {"register_module", "register_parameter", "register_buffer"})
    if (isModuleMethod(Method, Name))
      return Name;
  return "";
}

const Expr *firstModuleCall(const Stmt *S) {
  if (!S)
    return nullptr;
  if (const auto *E = dyn_cast<Expr>(S))
    if (isModuleCall(E))
      return E;
  for (const Stmt *Child : S->children())
    if (const Expr *Found = firstModuleCall(Child))
      return Found;
  return nullptr;
}

} // namespace torchlint::api
