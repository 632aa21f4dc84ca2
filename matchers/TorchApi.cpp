//===--- TorchApi.cpp - libtorch's types and function names ---------------===//
//
// What a type or a function of libtorch is: tensors and their sequences,
// devices, options, dtypes, factories, tensor methods. Modules and loaders are
// in ModuleApi.cpp, device literals and availability in DeviceLiteralApi.cpp.
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

const CXXRecordDecl *recordOf(QualType T) {
  T = bareType(T);
  if (T.isNull())
    return nullptr;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return RD ? RD->getDefinition() ? RD->getDefinition() : RD : nullptr;
}

bool hasQualifiedName(const NamedDecl *D, llvm::StringRef Name) {
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

bool isRecordNamed(QualType T, llvm::StringRef Name) {
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

bool isDevicePointer(QualType T) {
  T = bareType(T);
  if (T.isNull())
    return false;
  if (const auto *Pointer = T->getAs<PointerType>())
    return isDevice(Pointer->getPointeeType());
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(T));
  if (!Spec || Spec->getTemplateArgs().size() < 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  return (hasQualifiedName(Spec, "std::shared_ptr") ||
          hasQualifiedName(Spec, "std::unique_ptr")) &&
         isDevice(Spec->getTemplateArgs()[0].getAsType());
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

} // namespace torchlint::api
