#include "analysis/HostWidening.h"

#include "analysis/FunctionCfg.h"
#include "analysis/Loops.h"
#include "analysis/ReachingValues.h"
#include "analysis/UnitIndex.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace torchlint {
namespace {

constexpr unsigned MaxDepth = 16;

bool isIntegral(llvm::StringRef Dtype) {
  return Dtype == "uint8" || Dtype == "int8" || Dtype == "int16" ||
         Dtype == "int32" || Dtype == "int64" || Dtype == "bool";
}

/// A conversion for compute: to a floating dtype wider than the data. An
/// index or label made 64-bit for an API (`.to(torch::kLong)`) is not one.
bool widens(llvm::StringRef From, llvm::StringRef To) {
  unsigned Narrow = api::dtypeBytes(From);
  return Narrow > 0 && api::dtypeBytes(To) > Narrow && !isIntegral(To);
}

llvm::StringRef nameOf(const FunctionDecl *FD) {
  return FD && FD->getDeclName().isIdentifier() ? FD->getName() : "";
}

/// Methods whose result has the dtype of their tensor: views, copies in
/// another layout, selections.
bool keepsDtype(llvm::StringRef Name) {
  return api::isViewMethod(Name) ||
         llvm::StringSwitch<bool>(Name)
             .Cases("clone", "contiguous", "flip", "roll", "repeat", "expand",
                    true)
             .Cases("index_select", "clamp", "clamp_", "pin_memory", "cat",
                    true)
             .Default(false);
}

enum class Arithmetic { None, Divides, Scales };
Arithmetic arithmeticOf(llvm::StringRef Name) {
  return llvm::StringSwitch<Arithmetic>(Name)
      .Cases("div", "true_divide", "divide", "operator/", Arithmetic::Divides)
      .Cases("mul", "multiply", "add", "sub", "subtract", Arithmetic::Scales)
      .Cases("operator*", "operator+", "operator-", Arithmetic::Scales)
      .Default(Arithmetic::None);
}

/// An operand that promotes an integer tensor to the default float dtype
/// under multiplication, addition or subtraction: a floating scalar.
bool isFloatingScalar(const Expr *E) {
  E = api::ignoreWrappers(E);
  if (!E)
    return false;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() >= 1)
    E = Construct->getArg(0)->IgnoreParenImpCasts(); // c10::Scalar(0.5)
  return E->getType()->isRealFloatingType();
}

/// The dtype a tensor method converts to when it converts on the spot:
/// `to(kFloat)`, `to(options)`, `toType(kFloat)`, `type(kFloat)`. Empty for
/// other calls, and for a to() that also names a device (a copy).
std::string conversionTarget(const CXXMemberCallExpr *Call) {
  llvm::StringRef Name = nameOf(Call->getMethodDecl());
  if (Name != "to" && Name != "toType" && Name != "type")
    return "";
  std::string Target;
  for (const Expr *Arg : Call->arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    const Expr *Written = Arg->IgnoreUnlessSpelledInSource();
    QualType T = Written ? Written->getType() : Arg->getType();
    if (api::isDevice(T) || api::isDeviceType(T))
      return "";
    if (api::isScalarType(T) || api::isTensorOptions(T))
      if (std::string Dtype = api::dtypeNameOf(Arg); !Dtype.empty())
        Target = Dtype;
  }
  return Target;
}

/// The variable an expression names, through the conversions OpenCV's
/// InputArray/OutputArray parameters and casts add.
const VarDecl *namedVariable(const Expr *E) {
  for (unsigned Steps = 0; E && Steps < 8; ++Steps) {
    E = E->IgnoreParenCasts();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      E = Construct->getNumArgs() >= 1 ? Construct->getArg(0) : nullptr;
      continue;
    }
    if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = Temp->getSubExpr();
      continue;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(Ref->getDecl());
    return nullptr;
  }
  return nullptr;
}

bool isOpenCvMat(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD)
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  return Name == "cv::Mat" || Name == "cv::UMat";
}

/// The OpenCV matrix whose memory E points into: `m.data`, `m.ptr<float>()`,
/// `m.datastart`, through casts.
const VarDecl *matrixBehind(const Expr *E) {
  E = E ? E->IgnoreParenCasts() : nullptr;
  const Expr *Base = nullptr;
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(E)) {
    llvm::StringRef Field = Member->getMemberDecl()->getName();
    if (Field == "data" || Field == "datastart")
      Base = Member->getBase();
  } else if (const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    if (nameOf(Call->getMethodDecl()) == "ptr")
      Base = Call->getImplicitObjectArgument();
  }
  const VarDecl *Var = namedVariable(Base);
  return Var && isOpenCvMat(Var->getType()) ? Var : nullptr;
}

/// OpenCV's depth of a type constant: CV_32F and CV_32FC3 are 32-bit floats.
std::string openCvDepth(const Expr *E, ASTContext &Ctx) {
  std::optional<llvm::APSInt> Value =
      E ? E->getIntegerConstantExpr(Ctx) : std::nullopt;
  if (!Value)
    return "";
  switch (Value->getExtValue() & 7) {
  case 0:
    return "uint8";
  case 1:
    return "int8";
  case 2:
  case 3:
    return "int16";
  case 4:
    return "int32";
  case 5:
    return "float32";
  case 6:
    return "float64";
  default:
    return "";
  }
}

/// The calls of a function that convert an OpenCV matrix into Var as
/// floats: `src.convertTo(Var, CV_32F)`, `blobFromImage(img, Var)`, `Var =
/// blobFromImage(img)`.
class MatConversionFinder : public RecursiveASTVisitor<MatConversionFinder> {
public:
  MatConversionFinder(const VarDecl *Var, ASTContext &Ctx)
      : Var(Var), Ctx(Ctx) {}
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    llvm::StringRef Name = nameOf(FD);
    if (Name == "convertTo" && isa<CXXMemberCallExpr>(Call) &&
        Call->getNumArgs() >= 2 && namedVariable(Call->getArg(0)) == Var) {
      std::string Depth = openCvDepth(Call->getArg(1), Ctx);
      if (Depth == "float32" || Depth == "float64")
        record(Call, Depth);
      return true;
    }
    if ((Name == "blobFromImage" || Name == "blobFromImages") && FD &&
        FD->getQualifiedNameAsString().find("cv::dnn") == 0) {
      // The output form writes its second argument; the other returns.
      bool Writes = Call->getNumArgs() >= 2 &&
                    namedVariable(Call->getArg(1)) == Var &&
                    !isOpenCvMat(FD->getReturnType());
      bool Returns = isOpenCvMat(FD->getReturnType()) && assignsVar(Call);
      if (!Writes && !Returns)
        return true;
      // ddepth, the last parameter, defaults to CV_32F.
      const Expr *Last = Call->getArg(Call->getNumArgs() - 1);
      std::string Depth =
          isa<CXXDefaultArgExpr>(Last) ? "float32" : openCvDepth(Last, Ctx);
      if (Depth == "float32" || Depth == "float64")
        record(Call, Depth);
    }
    return true;
  }
  const CallExpr *Conversion = nullptr;
  std::string To;

private:
  void record(const CallExpr *Call, const std::string &Depth) {
    if (!Conversion) {
      Conversion = Call;
      To = Depth;
    }
  }
  /// `Var = call` or `cv::Mat Var = call`.
  bool assignsVar(const CallExpr *Call) {
    DynTypedNode Node = DynTypedNode::create(*Call);
    for (unsigned Steps = 0; Steps < 6; ++Steps) {
      DynTypedNodeList Parents = Ctx.getParents(Node);
      if (Parents.empty())
        return false;
      Node = Parents[0];
      if (const auto *D = Node.get<VarDecl>())
        return D == Var;
      if (const auto *Op = Node.get<CXXOperatorCallExpr>())
        return Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
               namedVariable(Op->getArg(0)) == Var;
      if (Node.get<CompoundStmt>())
        return false;
    }
    return false;
  }
  const VarDecl *Var;
  ASTContext &Ctx;
};

/// The user's dataset class a data loader type draws from: the first class
/// among its template arguments, at any depth, that defines get() and is not
/// libtorch's.
const CXXMethodDecl *datasetGet(QualType T, unsigned Depth = 0) {
  if (Depth > 6)
    return nullptr;
  T = T.getNonReferenceType();
  if (T->isPointerType())
    T = T->getPointeeType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return nullptr;
  if (!api::isInTorchNamespace(RD) && RD->hasDefinition())
    for (const CXXMethodDecl *MD : RD->getDefinition()->methods())
      if (nameOf(MD) == "get" && MD->hasBody())
        return MD;
  const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
  if (!Spec)
    return nullptr;
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
    if (Arg.getKind() == TemplateArgument::Type)
      if (const CXXMethodDecl *Get = datasetGet(Arg.getAsType(), Depth + 1))
        return Get;
  return nullptr;
}

/// The values a function of the program returns, through every return
/// statement of its body; empty when one returns nothing to follow.
llvm::SmallVector<const Expr *, 2> returnedValues(const FunctionDecl *FD) {
  struct ReturnFinder : RecursiveASTVisitor<ReturnFinder> {
    bool VisitReturnStmt(ReturnStmt *Return) {
      if (Return->getRetValue())
        Values.push_back(Return->getRetValue());
      else
        Complete = false;
      return true;
    }
    bool TraverseLambdaExpr(LambdaExpr *) { return true; }
    llvm::SmallVector<const Expr *, 2> Values;
    bool Complete = true;
  } Finder;
  Finder.TraverseStmt(FD->getBody());
  if (!Finder.Complete)
    Finder.Values.clear();
  return Finder.Values;
}

/// The tensors a dataset's get() returns as an example's data: `return
/// {data, target};` or `return torch::data::Example<>(data, target);`.
llvm::SmallVector<const Expr *, 2> returnedData(const CXXMethodDecl *Get) {
  llvm::SmallVector<const Expr *, 2> Data;
  for (const Expr *Returned : returnedValues(Get)) {
    const Expr *Value = api::ignoreWrappers(Returned);
    if (const auto *List = dyn_cast_or_null<InitListExpr>(Value);
        List && List->getNumInits() >= 1)
      Data.push_back(List->getInit(0));
    else if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Value);
             Construct && Construct->getNumArgs() >= 2)
      Data.push_back(Construct->getArg(0));
    else
      return {};
  }
  return Data;
}

/// The argument a call passes for Param.
const Expr *argumentFor(const Expr *Call, const ParmVarDecl *Param) {
  unsigned Index = Param->getFunctionScopeIndex();
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
      Op && isa_and_nonnull<CXXMethodDecl>(Op->getDirectCallee()))
    ++Index;
  if (const auto *C = dyn_cast<CallExpr>(Call))
    return Index < C->getNumArgs() ? C->getArg(Index) : nullptr;
  if (const auto *C = dyn_cast<CXXConstructExpr>(Call))
    return Index < C->getNumArgs() ? C->getArg(Index) : nullptr;
  return nullptr;
}

class Tracer {
public:
  Tracer(FunctionCfgCache &Cfgs, UnitIndex &Index)
      : Cfgs(Cfgs), Index(Index), Ctx(Cfgs.astContext()) {}

  /// Where the value of E comes from, when E only passes on a value made
  /// elsewhere: the definitions of a local variable that reach E, the
  /// arguments every call of the function passes for a parameter it never
  /// assigns, the values a function of the program returns. Nullopt for
  /// any other expression, or when some source is not known.
  std::optional<llvm::SmallVector<const Expr *, 2>> sourcesOf(const Expr *E) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *Param = dyn_cast<ParmVarDecl>(Ref->getDecl())) {
        const auto *FD = dyn_cast<FunctionDecl>(Param->getDeclContext());
        if (!FD || !neverAssigned(Param, FD))
          return std::nullopt;
        std::optional<llvm::ArrayRef<UnitIndex::CallSite>> Sites =
            Index.callSites(FD);
        if (!Sites || Sites->empty())
          return std::nullopt;
        llvm::SmallVector<const Expr *, 2> Args;
        for (const UnitIndex::CallSite &Site : *Sites) {
          const Expr *Arg = argumentFor(Site.Call, Param);
          if (!Arg)
            return std::nullopt;
          Args.push_back(Arg);
        }
        return Args;
      }
      return reachingValues(dyn_cast<VarDecl>(Ref->getDecl()), Ref, Cfgs);
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
    const FunctionDecl *Definition = nullptr;
    if (!FD || !FD->hasBody(Definition) || api::isInTorchNamespace(FD) ||
        Ctx.getSourceManager().isInSystemHeader(Definition->getLocation()) ||
        !api::isTensor(FD->getReturnType()))
      return std::nullopt;
    llvm::SmallVector<const Expr *, 2> Values = returnedValues(Definition);
    if (Values.empty())
      return std::nullopt;
    return Values;
  }

  /// The dtype of the host tensor E, when the program states it.
  std::string dtypeOf(const Expr *E, unsigned Depth = 0) {
    E = api::ignoreWrappers(E);
    if (!E || Depth > MaxDepth)
      return "";
    if (std::optional<llvm::SmallVector<const Expr *, 2>> Values =
            sourcesOf(E)) {
      std::string Common;
      for (const Expr *Value : *Values) {
        std::string Dtype = dtypeOf(Value, Depth + 1);
        if (Dtype.empty() || (!Common.empty() && Common != Dtype))
          return "";
        Common = Dtype;
      }
      return Common;
    }
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = Call->getMethodDecl();
      if (!MD || !api::isTensorMethod(MD))
        return "";
      if (std::string Target = conversionTarget(Call); !Target.empty())
        return Target;
      llvm::StringRef Name = nameOf(MD);
      const Expr *Tensor = Call->getImplicitObjectArgument();
      if (Arithmetic Kind = arithmeticOf(Name); Kind != Arithmetic::None)
        return arithmeticResult(Kind, Tensor,
                                Call->getNumArgs() ? Call->getArg(0) : nullptr,
                                Call->getNumArgs(), Depth);
      if (keepsDtype(Name) || (Name == "to" && conversionTarget(Call).empty()))
        return dtypeOf(Tensor, Depth + 1);
      return "";
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      auto [Tensor, Other, Kind] = operatorOperands(Op);
      return Tensor ? arithmeticResult(Kind, Tensor, Other, 1, Depth) : "";
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (!FD || !api::isFactoryFunction(FD))
        return "";
      for (const Expr *Arg : Call->arguments())
        if (api::isScalarType(Arg->getType()) ||
            api::isTensorOptions(Arg->getType()))
          if (std::string Dtype = api::dtypeNameOf(Arg); !Dtype.empty())
            return Dtype;
      // Only from_blob's default is plain: it reads floats.
      return api::torchFunctionName(FD) == "from_blob" ? "float32" : "";
    }
    return "";
  }

  /// Where E, a tensor on the host, was widened. InCopy: E is part of the
  /// copy's own expression.
  std::optional<HostWidening> widening(const Expr *E, bool InCopy,
                                       unsigned Depth = 0) {
    E = api::ignoreWrappers(E);
    if (!E || Depth > MaxDepth)
      return std::nullopt;
    // A value made elsewhere: every source widens, so the data crosses wide
    // whatever path the program took.
    if (std::optional<llvm::SmallVector<const Expr *, 2>> Values = sourcesOf(E))
      return allWiden(*Values, Depth);
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = Call->getMethodDecl();
      const Expr *Tensor = Call->getImplicitObjectArgument();
      if (!MD || !api::isTensorMethod(MD)) {
        if (nameOf(MD) == "data" && api::isExample(Tensor->getType()))
          return fromDataset(Tensor, Depth);
        return std::nullopt;
      }
      llvm::StringRef Name = nameOf(MD);
      if (std::string Target = conversionTarget(Call); !Target.empty()) {
        std::string Source = dtypeOf(Tensor, Depth + 1);
        if (!widens(Source, Target))
          return std::nullopt;
        return HostWidening{HostWidening::Form::Conversion, Call,
                            InCopy ? Tensor : nullptr, Source, Target};
      }
      if (Arithmetic Kind = arithmeticOf(Name); Kind != Arithmetic::None)
        return throughArithmetic(Call, Kind, Tensor,
                                 Call->getNumArgs() ? Call->getArg(0) : nullptr,
                                 Call->getNumArgs(), InCopy, Depth);
      if (keepsDtype(Name) || Name == "to")
        return widening(Tensor, InCopy, Depth + 1);
      return std::nullopt;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      auto [Tensor, Other, Kind] = operatorOperands(Op);
      if (!Tensor)
        return std::nullopt;
      return throughArithmetic(Op, Kind, Tensor, Other, 1, InCopy, Depth);
    }
    if (const auto *Member = dyn_cast<MemberExpr>(E))
      if (api::isExample(Member->getBase()->getType()) &&
          Member->getMemberDecl()->getName() == "data")
        return fromDataset(Member->getBase(), Depth);
    if (const auto *Call = dyn_cast<CallExpr>(E))
      return fromOpenCv(Call);
    return std::nullopt;
  }

private:
  std::optional<HostWidening> allWiden(llvm::ArrayRef<const Expr *> Values,
                                       unsigned Depth) {
    std::optional<HostWidening> First;
    for (const Expr *Value : Values) {
      std::optional<HostWidening> W = widening(Value, false, Depth + 1);
      if (!W)
        return std::nullopt;
      if (!First)
        First = W;
    }
    return First;
  }

  struct Operands {
    const Expr *Tensor = nullptr;
    const Expr *Other = nullptr;
    Arithmetic Kind = Arithmetic::None;
  };
  Operands operatorOperands(const CXXOperatorCallExpr *Op) {
    if (Op->getNumArgs() != 2)
      return {};
    Arithmetic Kind = arithmeticOf(std::string("operator") +
                                   getOperatorSpelling(Op->getOperator()));
    if (Kind == Arithmetic::None)
      return {};
    const Expr *L = Op->getArg(0), *R = Op->getArg(1);
    if (api::isTensor(L->getType()) && !api::isTensor(R->getType()))
      return {L, R, Kind};
    // `255 - x` has no division; `1.0 / x` would be one, but is no input.
    if (Kind == Arithmetic::Scales && api::isTensor(R->getType()) &&
        !api::isTensor(L->getType()))
      return {R, L, Kind};
    return {};
  }

  std::string arithmeticResult(Arithmetic Kind, const Expr *Tensor,
                               const Expr *Other, unsigned Args,
                               unsigned Depth) {
    std::string Source = dtypeOf(Tensor, Depth + 1);
    if (Source.empty() || !Other || api::isTensor(Other->getType()))
      return "";
    if (!isIntegral(Source))
      return Source;
    // True division, or a floating scalar, promotes to the default dtype;
    // a rounding mode keeps the integers.
    if ((Kind == Arithmetic::Divides && Args == 1) || isFloatingScalar(Other))
      return "float32";
    return Kind == Arithmetic::Divides ? "" : Source;
  }

  std::optional<HostWidening>
  throughArithmetic(const Expr *Call, Arithmetic Kind, const Expr *Tensor,
                    const Expr *Other, unsigned Args, bool InCopy,
                    unsigned Depth) {
    std::string Source = dtypeOf(Tensor, Depth + 1);
    std::string Result = arithmeticResult(Kind, Tensor, Other, Args, Depth);
    if (widens(Source, Result))
      return HostWidening{HostWidening::Form::Arithmetic, Call,
                          InCopy ? Tensor : nullptr, Source, Result};
    if (!Result.empty() && !isIntegral(Result))
      return widening(Tensor, InCopy, Depth + 1);
    return std::nullopt;
  }

  /// from_blob over the memory of an OpenCV matrix that was converted to
  /// floats.
  std::optional<HostWidening> fromOpenCv(const CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || api::torchFunctionName(FD) != "from_blob" ||
        Call->getNumArgs() < 2)
      return std::nullopt;
    std::string Wraps = dtypeOf(Call);
    if (Wraps != "float32" && Wraps != "float64")
      return std::nullopt;
    const VarDecl *Matrix = matrixBehind(Call->getArg(0));
    const FunctionCfg *Cfg = Matrix ? Cfgs.of(Call) : nullptr;
    if (!Cfg)
      return std::nullopt;
    MatConversionFinder Finder(Matrix, Ctx);
    Finder.TraverseStmt(const_cast<Stmt *>(Cfg->Function->getBody()));
    if (!Finder.Conversion)
      return std::nullopt;
    return HostWidening{HostWidening::Form::OpenCv, Finder.Conversion, nullptr,
                        "uint8", Finder.To};
  }

  /// The data of a batch a data loader gives, when the loader's dataset
  /// widens it in get().
  std::optional<HostWidening> fromDataset(const Expr *Batch, unsigned Depth) {
    const auto *Ref = dyn_cast<DeclRefExpr>(api::ignoreWrappers(Batch));
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Var)
      return std::nullopt;
    const CXXForRangeStmt *Loop = rangeForDeclaring(Var, Ctx);
    if (!Loop)
      return std::nullopt;
    const Expr *Range = api::ignoreWrappers(Loop->getRangeInit());
    if (const auto *Deref = dyn_cast<UnaryOperator>(Range);
        Deref && Deref->getOpcode() == UO_Deref)
      Range = Deref->getSubExpr();
    else if (const auto *Deref = dyn_cast<CXXOperatorCallExpr>(Range);
             Deref && Deref->getOperator() == OO_Star &&
             Deref->getNumArgs() == 1)
      Range = Deref->getArg(0);
    QualType LoaderType = Range->getType().getNonReferenceType();
    // A loader held by std::unique_ptr: its element type.
    if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
            LoaderType->getAsCXXRecordDecl());
        Spec && !api::isDataLoaderValue(LoaderType) &&
        Spec->getTemplateArgs().size() >= 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      LoaderType = Spec->getTemplateArgs()[0].getAsType();
    const CXXMethodDecl *Get = datasetGet(LoaderType);
    if (!Get)
      return std::nullopt;
    std::optional<HostWidening> First = allWiden(returnedData(Get), Depth);
    if (First)
      First->How = HostWidening::Form::InDataset;
    return First;
  }

  FunctionCfgCache &Cfgs;
  UnitIndex &Index;
  ASTContext &Ctx;
};

} // namespace

std::optional<HostWidening> widenedBeforeCopy(const DeviceCopy &Copy,
                                              FunctionCfgCache &Cfgs,
                                              UnitIndex &Index) {
  ASTContext &Ctx = Cfgs.astContext();
  Tracer Trace(Cfgs, Index);
  if (Copy.DType) {
    // A blocking copy converts on the host before it copies (ATen's
    // copy_kernel_cuda); a non-blocking one converts on the device.
    if (isNonBlocking(Copy, Ctx))
      return std::nullopt;
    std::string Target = api::dtypeNameOf(Copy.DType);
    std::string Source = Trace.dtypeOf(Copy.Source);
    if (widens(Source, Target))
      return HostWidening{HostWidening::Form::InTheCopy, Copy.Call, Copy.Source,
                          Source, Target};
    if (!Target.empty())
      return std::nullopt;
  }
  return Trace.widening(Copy.Source, /*InCopy=*/true);
}

} // namespace torchlint
