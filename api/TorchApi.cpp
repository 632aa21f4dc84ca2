#include "api/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace torchlint::api {

const char *deviceKindName(DeviceKind Kind) {
  switch (Kind) {
  case DeviceKind::CPU:
    return "the CPU";
  case DeviceKind::CUDA:
    return "the GPU";
  case DeviceKind::Other:
    return "an accelerator";
  case DeviceKind::Unknown:
    break;
  }
  return "an unknown device";
}

const Expr *ignoreWrappers(const Expr *E) {
  while (E) {
    const Expr *Before = E;
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr();
    else if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temp->getSubExpr();
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      E = Bind->getSubExpr();
    // A member's default initialiser, run by a constructor that does not
    // name the member.
    else if (const auto *Default = dyn_cast<CXXDefaultInitExpr>(E))
      E = Default->getExpr();
    else if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      if (Cast->getCastKind() == CK_NoOp ||
          Cast->getCastKind() == CK_ConstructorConversion)
        E = Cast->getSubExpr();
    } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      // Copies and moves keep the value; a converting constructor of another
      // class (Device -> TensorOptions) is kept for the caller to interpret.
      const CXXConstructorDecl *Ctor = Construct->getConstructor();
      if (Construct->getNumArgs() >= 1 && Ctor &&
          (Ctor->isCopyOrMoveConstructor()) &&
          !isa<CXXTemporaryObjectExpr>(Construct))
        E = Construct->getArg(0);
    }
    if (E == Before)
      return E;
  }
  return E;
}

QualType bareType(QualType T) {
  if (T.isNull())
    return T;
  T = T.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  return T;
}

static const CXXRecordDecl *recordOf(QualType T) {
  T = bareType(T);
  if (T.isNull())
    return nullptr;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return RD ? RD->getDefinition() ? RD->getDefinition() : RD : nullptr;
}

static bool hasQualifiedName(const NamedDecl *D, llvm::StringRef Name) {
  if (!D)
    return false;
  // Cheap filter on the unqualified name before building the qualified one.
  llvm::StringRef Last = Name.rsplit("::").second;
  if (Last.empty())
    Last = Name;
  if (!D->getDeclName().isIdentifier() || D->getName() != Last)
    return false;
  return D->getQualifiedNameAsString() == Name;
}

static bool isRecordNamed(QualType T, llvm::StringRef Name) {
  return hasQualifiedName(recordOf(T), Name);
}

bool isTensor(QualType T) {
  const CXXRecordDecl *RD = recordOf(T);
  return hasQualifiedName(RD, "at::Tensor") ||
         hasQualifiedName(RD, "at::TensorBase");
}

bool isTensorTuple(QualType T) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(T));
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier() ||
      (Spec->getName() != "tuple" && Spec->getName() != "pair"))
    return false;
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray()) {
    if (Arg.getKind() == TemplateArgument::Type &&
        (isTensor(Arg.getAsType()) || isTensorTuple(Arg.getAsType())))
      return true;
    if (Arg.getKind() == TemplateArgument::Pack)
      for (const TemplateArgument &Element : Arg.pack_elements())
        if (Element.getKind() == TemplateArgument::Type &&
            (isTensor(Element.getAsType()) ||
             isTensorTuple(Element.getAsType())))
          return true;
  }
  return false;
}

static bool isIValue(QualType T) { return isRecordNamed(T, "c10::IValue"); }

bool isTensorSequence(QualType T) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(T));
  if (!Spec || Spec->getTemplateArgs().size() < 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  QualType Element = Spec->getTemplateArgs()[0].getAsType();
  if (!isTensor(Element) && !isIValue(Element))
    return false;
  return hasQualifiedName(Spec, "std::vector") ||
         hasQualifiedName(Spec, "std::initializer_list") ||
         hasQualifiedName(Spec, "c10::ArrayRef") ||
         hasQualifiedName(Spec, "c10::IListRef");
}

namespace {
bool isStdFunction(const CallExpr *Call,
                   std::initializer_list<llvm::StringRef> Names) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->isInStdNamespace() || !FD->getIdentifier())
    return false;
  for (llvm::StringRef Name : Names)
    if (FD->getName() == Name)
      return true;
  return false;
}
} // namespace

bool isModuleContainer(QualType T) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(T));
  if (!Spec || !Spec->isInStdNamespace() ||
      hasQualifiedName(Spec, "std::shared_ptr") ||
      hasQualifiedName(Spec, "std::unique_ptr"))
    return false;
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
    if (Arg.getKind() == TemplateArgument::Type &&
        (moduleClassOf(Arg.getAsType()) || isModuleContainer(Arg.getAsType())))
      return true;
  return false;
}

bool isTupleOfReferences(const CallExpr *Call) {
  return isStdFunction(Call, {"tie", "forward_as_tuple"});
}

bool isTupleGet(const CallExpr *Call) {
  return Call && Call->getNumArgs() == 1 && isStdFunction(Call, {"get"}) &&
         isTensorTuple(Call->getArg(0)->getType());
}

bool isTensorOptions(QualType T) {
  return isRecordNamed(T, "c10::TensorOptions");
}

bool isDevice(QualType T) { return isRecordNamed(T, "c10::Device"); }

bool isDeviceType(QualType T) {
  T = bareType(T);
  if (T.isNull())
    return false;
  const auto *ET = T->getAs<EnumType>();
  return ET && hasQualifiedName(ET->getDecl(), "c10::DeviceType");
}

bool isScalarType(QualType T) {
  T = bareType(T);
  if (T.isNull())
    return false;
  if (const auto *ET = T->getAs<EnumType>())
    return hasQualifiedName(ET->getDecl(), "c10::ScalarType");
  // std::optional<ScalarType> / c10::optional<ScalarType>.
  return false;
}

bool isDeviceLike(QualType T) {
  return isDevice(T) || isDeviceType(T) || isTensorOptions(T);
}

bool isStringLike(QualType T) {
  T = bareType(T);
  if (T.isNull())
    return false;
  if (const auto *Pointer = T->getAs<PointerType>())
    return Pointer->getPointeeType()->isCharType();
  if (const auto *Array = T->getAsArrayTypeUnsafe())
    return Array->getElementType()->isCharType();
  const CXXRecordDecl *RD = recordOf(T);
  return RD && RD->isInStdNamespace() && RD->getIdentifier() &&
         (RD->getName() == "basic_string" ||
          RD->getName() == "basic_string_view");
}

bool isOptionalDevice(QualType T) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(T));
  if (!Spec || !Spec->getIdentifier() || Spec->getName() != "optional" ||
      Spec->getTemplateArgs().size() < 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  return isDevice(Spec->getTemplateArgs()[0].getAsType());
}

bool isScriptModuleLoad(const FunctionDecl *FD) {
  return hasQualifiedName(FD, "torch::jit::load") &&
         moduleClassOf(FD->getReturnType());
}

bool isModuleClass(const CXXRecordDecl *RD) {
  if (!RD)
    return false;
  RD = RD->getDefinition();
  if (!RD)
    return false;
  if (hasQualifiedName(RD, "torch::nn::Module"))
    return true;
  bool Found = false;
  RD->forallBases([&](const CXXRecordDecl *Base) {
    if (hasQualifiedName(Base, "torch::nn::Module"))
      Found = true;
    return !Found;
  });
  return Found;
}

bool isScriptModuleClass(const CXXRecordDecl *RD) {
  return hasQualifiedName(RD, "torch::jit::Module");
}

bool isScriptValue(QualType T) {
  T = bareType(T);
  if (!T.isNull() && T->isPointerType())
    T = T->getPointeeType(); // the tuple that outputs-> reaches
  const CXXRecordDecl *RD = recordOf(T);
  if (!RD || !RD->getIdentifier())
    return false;
  if (hasQualifiedName(RD, "c10::intrusive_ptr")) {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
    return Spec && Spec->getTemplateArgs().size() >= 1 &&
           Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
           isScriptValue(Spec->getTemplateArgs()[0].getAsType());
  }
  return hasQualifiedName(RD, "c10::IValue") ||
         hasQualifiedName(RD, "c10::ivalue::Tuple") ||
         hasQualifiedName(RD, "c10::ivalue::TupleElements") ||
         hasQualifiedName(RD, "c10::List") || hasQualifiedName(RD, "c10::Dict");
}

bool isPackedSequence(QualType T) {
  return hasQualifiedName(recordOf(T), "torch::nn::utils::rnn::PackedSequence");
}

bool carriesTensors(QualType T) {
  return isTensor(T) || isTensorSequence(T) || isTensorTuple(T) ||
         isScriptValue(T) || isPackedSequence(T);
}

static bool holdsTensors(QualType T, unsigned Depth) {
  T = bareType(T);
  if (T.isNull())
    return false;
  if (T->isPointerType())
    T = bareType(T->getPointeeType());
  if (carriesTensors(T))
    return true;
  const CXXRecordDecl *RD = recordOf(T);
  if (!RD || Depth == 0 || moduleClassOf(T) || isDataLoaderValue(T))
    return false;
  if (hasQualifiedName(RD, "std::any"))
    return true;
  if (RD->isInStdNamespace()) {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
    if (!Spec || !Spec->getIdentifier())
      return false;
    static const llvm::StringRef Holders[] = {
        "vector",     "deque",         "list",     "array",
        "map",        "unordered_map", "optional", "shared_ptr",
        "unique_ptr", "pair",          "tuple"};
    if (!llvm::is_contained(Holders, Spec->getName()))
      return false;
    for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
      if (Arg.getKind() == TemplateArgument::Type &&
          holdsTensors(Arg.getAsType(), Depth - 1))
        return true;
    return false;
  }
  if (isInTorchNamespace(RD) || !RD->hasDefinition() || RD->isLambda())
    return false;
  const CXXRecordDecl *Definition = RD->getDefinition();
  for (const FieldDecl *Field : Definition->fields())
    if (holdsTensors(Field->getType(), Depth - 1))
      return true;
  // class Pack : public std::map<std::string, std::any>
  for (const CXXBaseSpecifier &Base : Definition->bases())
    if (holdsTensors(Base.getType(), Depth))
      return true;
  return false;
}

bool isTensorCarrier(QualType T) {
  return !carriesTensors(T) && holdsTensors(T, 3);
}

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

bool isInTorchNamespace(const Decl *D) {
  if (!D)
    return false;
  const DeclContext *DC = D->getDeclContext();
  const NamespaceDecl *Outermost = nullptr;
  for (; DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Outermost = NS;
  if (!Outermost || !Outermost->getDeclName().isIdentifier())
    return false;
  llvm::StringRef Name = Outermost->getName();
  return Name == "torch" || Name == "at" || Name == "c10";
}

llvm::StringRef torchFunctionName(const FunctionDecl *FD) {
  if (!FD || !FD->getDeclName().isIdentifier() || !isInTorchNamespace(FD))
    return "";
  return FD->getName();
}

bool isFactoryFunction(const FunctionDecl *FD) {
  if (isa_and_nonnull<CXXMethodDecl>(FD))
    return false;
  llvm::StringRef Name = torchFunctionName(FD);
  return llvm::StringSwitch<bool>(Name)
      .Cases("randn", "rand", "randint", "randperm", "zeros", "ones", true)
      .Cases("full", "empty", "empty_strided", "arange", "range", true)
      .Cases("linspace", "logspace", "eye", "tensor", "scalar_tensor", true)
      .Cases("from_blob", "normal", "bartlett_window", "hann_window", true)
      .Cases("tril_indices", "triu_indices", "complex", true)
      .Default(false);
}

bool isLikeFactory(const FunctionDecl *FD) {
  if (isa_and_nonnull<CXXMethodDecl>(FD))
    return false;
  llvm::StringRef Name = torchFunctionName(FD);
  return Name.ends_with("_like") && Name != "_like";
}

bool isLossFunction(const FunctionDecl *FD) {
  if (isa_and_nonnull<CXXMethodDecl>(FD))
    return false;
  llvm::StringRef Name = torchFunctionName(FD);
  if (Name.empty())
    return false;
  return Name.ends_with("_loss") || Name == "cross_entropy" ||
         Name == "binary_cross_entropy" ||
         Name == "binary_cross_entropy_with_logits" || Name == "kl_div" ||
         Name == "nll_loss2d" || Name == "cosine_embedding_loss";
}

bool needsCpuArgument(const FunctionDecl *FD, unsigned Index) {
  // The lengths of a packed sequence are read on the host (libtorch 1.7 and
  // later refuse them on a GPU).
  return Index == 1 && !isa_and_nonnull<CXXMethodDecl>(FD) &&
         torchFunctionName(FD) == "pack_padded_sequence";
}

bool isTensorMethod(const CXXMethodDecl *MD, llvm::StringRef Name) {
  if (!MD || !MD->getDeclName().isIdentifier())
    return false;
  if (!Name.empty() && MD->getName() != Name)
    return false;
  const CXXRecordDecl *RD = MD->getParent();
  return hasQualifiedName(RD, "at::Tensor") ||
         hasQualifiedName(RD, "at::TensorBase");
}

bool isViewMethod(llvm::StringRef Name) {
  static const llvm::StringRef Views[] = {
      "view",       "slice",         "narrow",         "select",
      "squeeze",    "unsqueeze",     "permute",        "transpose",
      "t",          "expand",        "detach",         "alias",
      "as_strided", "unfold",        "view_as",        "expand_as",
      "diagonal",   "chunk",         "split",          "unbind",
      "contiguous", "pin_memory",    "requires_grad_", "set_requires_grad",
      "data",       "variable_data", "index",          "real",
      "imag",       "movedim",       "swapaxes",       "swapdims"};
  return llvm::is_contained(Views, Name);
}

bool isModuleTo(const CXXMethodDecl *MD) { return isModuleMethod(MD, "to"); }

bool isModuleMethod(const CXXMethodDecl *MD, llvm::StringRef Name) {
  if (!MD || !MD->getDeclName().isIdentifier() || MD->getName() != Name)
    return false;
  if (hasQualifiedName(MD->getParent(), "torch::nn::Module") ||
      isScriptModuleClass(MD->getParent()))
    return true;
  // A module of the program that overrides it (a to() that also moves a
  // TorchScript backbone it holds) does what the base does, and more.
  return llvm::any_of(MD->overridden_methods(), [&](const CXXMethodDecl *Base) {
    return isModuleMethod(Base, Name);
  });
}

std::string scalarTypeName(const Expr *E) {
  E = api::ignoreWrappers(E);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E)) {
    llvm::StringRef Name = Ref->getDecl()->getName();
    Name.consume_front("k");
    return llvm::StringSwitch<std::string>(Name)
        .Cases("Float", "Float32", "float32")
        .Cases("Double", "Float64", "float64")
        .Cases("Half", "Float16", "float16")
        .Case("BFloat16", "bfloat16")
        .Cases("Long", "Int64", "int64")
        .Cases("Int", "Int32", "int32")
        .Cases("Byte", "UInt8", "uint8")
        .Cases("Char", "Int8", "int8")
        .Cases("Short", "Int16", "int16")
        .Case("Bool", "bool")
        .Default("");
  }
  return "";
}

std::string dtypeNameOf(const Expr *E) {
  E = api::ignoreWrappers(E);
  if (!E)
    return "";
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (FD && FD->getDeclName().isIdentifier() && FD->getName() == "dtype" &&
        Call->getNumArgs() >= 1) {
      std::string Name = scalarTypeName(Call->getArg(0));
      if (!Name.empty())
        return Name;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      return dtypeNameOf(Member->getImplicitObjectArgument());
    return "";
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    if (Construct->getNumArgs() >= 1) {
      std::string Name = scalarTypeName(Construct->getArg(0));
      if (!Name.empty())
        return Name;
    }
  return scalarTypeName(E);
}

unsigned dtypeBytes(llvm::StringRef Dtype) {
  return llvm::StringSwitch<unsigned>(Dtype)
      .Cases("uint8", "int8", "bool", 1)
      .Cases("int16", "float16", "bfloat16", 2)
      .Cases("int32", "float32", 4)
      .Cases("int64", "float64", 8)
      .Default(0);
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
    if (MD->getName() == "forward")
      return isModuleClass(MD->getParent()) ||
                     isScriptModuleClass(MD->getParent())
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

llvm::StringRef registrationName(const CallExpr *Call) {
  const auto *Method =
      dyn_cast_or_null<CXXMethodDecl>(Call ? Call->getDirectCallee() : nullptr);
  for (llvm::StringRef Name :
       {"register_module", "register_parameter", "register_buffer"})
    if (isModuleMethod(Method, Name))
      return Name;
  return "";
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

std::string sourceText(const Expr *E, const ASTContext &Ctx) {
  if (!E)
    return "";
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM,
      Ctx.getLangOpts());
  if (Range.isInvalid())
    return "";
  return Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
}

std::optional<bool> constantBool(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent())
    return std::nullopt;
  bool Value = false;
  if (E->EvaluateAsBooleanCondition(Value, Ctx))
    return Value;
  return std::nullopt;
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
