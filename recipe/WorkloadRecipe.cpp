#include "recipe/WorkloadRecipe.h"

#include "analysis/AutocastFlow.h"
#include "matchers/AutocastApi.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using nlohmann::json;

namespace torchlint::recipe {

json constantValue(const Expr *E, ASTContext &Ctx) {
  E = api::ignoreWrappers(E);
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return nullptr;
  if (const auto *S = dyn_cast<StringLiteral>(E))
    return S->getString().str();
  // std::string("fc1"), ExpandingArray<2>(3), int64_t(n): the value inside.
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    unsigned Explicit = 0;
    const Expr *Only = nullptr;
    for (const Expr *Arg : Construct->arguments())
      if (!isa<CXXDefaultArgExpr>(Arg)) {
        ++Explicit;
        Only = Arg;
      }
    return Explicit == 1 ? constantValue(Only, Ctx) : json(nullptr);
  }
  if (const auto *B = dyn_cast<CXXBoolLiteralExpr>(E))
    return B->getValue();
  Expr::EvalResult Result;
  if (E->getType()->isIntegralOrEnumerationType() &&
      E->EvaluateAsInt(Result, Ctx))
    return Result.Val.getInt().getExtValue();
  llvm::APFloat Float(0.0);
  if (E->getType()->isRealFloatingType() && E->EvaluateAsFloat(Float, Ctx))
    return Float.convertToDouble();
  return nullptr;
}

json describeOptimizer(const Expr *StepCall) {
  const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(StepCall);
  const CXXRecordDecl *Class =
      Member ? Member->getImplicitObjectArgument()->getBestDynamicClassType()
             : nullptr;
  return Class ? json(Class->getNameAsString()) : json();
}

json describeBackward(const CallExpr *Backward, AutocastFlow &Autocast) {
  if (!Backward)
    return nullptr;
  std::optional<AutocastSetting> Cuda =
      Autocast.before(Backward, api::DeviceKind::CUDA);
  return Cuda && Cuda->isOn() ? "inside-region" : "outside-region";
}

namespace {

std::string layerName(const CXXRecordDecl *Impl) {
  if (!Impl || !Impl->getDeclName().isIdentifier())
    return "";
  llvm::StringRef Name = Impl->getName();
  if (api::isInTorchNamespace(Impl))
    Name.consume_back("Impl");
  return Name.str();
}

/// The integers of an IntArrayRef written as a braced list: {64, 784}.
json shapeOf(const Expr *E, ASTContext &Ctx) {
  E = api::ignoreWrappers(E);
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E))
    if (Construct->getNumArgs() >= 1)
      E = api::ignoreWrappers(Construct->getArg(0));
  if (const auto *List = dyn_cast_or_null<CXXStdInitializerListExpr>(E))
    E = api::ignoreWrappers(List->getSubExpr());
  const auto *Init = dyn_cast_or_null<InitListExpr>(E);
  if (!Init)
    return nullptr;
  json Shape = json::array();
  for (const Expr *Dim : Init->inits())
    Shape.push_back(constantValue(Dim, Ctx));
  return Shape;
}

/// Constructor arguments and chained setters of an options object:
/// torch::nn::Conv2dOptions(1, 10, 5).stride(2).
void describeOptions(const Expr *E, ASTContext &Ctx, json &Out) {
  E = api::ignoreWrappers(E);
  if (const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    describeOptions(Call->getImplicitObjectArgument(), Ctx, Out);
    if (const CXXMethodDecl *MD = Call->getMethodDecl())
      if (MD->getDeclName().isIdentifier() && Call->getNumArgs() == 1)
        Out["options"][MD->getName().str()] =
            constantValue(Call->getArg(0), Ctx);
    return;
  }
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E))
    for (const Expr *Arg : Construct->arguments())
      if (!isa<CXXDefaultArgExpr>(Arg))
        Out["args"].push_back(constantValue(Arg, Ctx));
}

json describeConstruction(const Expr *E, ASTContext &Ctx, unsigned Depth);

/// Submodules registered by a user module's constructors.
json describeUserModule(const CXXRecordDecl *Impl, ASTContext &Ctx,
                        unsigned Depth) {
  json Module{{"type", layerName(Impl)}, {"submodules", json::array()}};
  if (Depth > 4)
    return Module;
  struct Finder : RecursiveASTVisitor<Finder> {
    ASTContext &Ctx;
    unsigned Depth;
    json &Submodules;
    Finder(ASTContext &Ctx, unsigned Depth, json &Submodules)
        : Ctx(Ctx), Depth(Depth), Submodules(Submodules) {}
    bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
      const CXXMethodDecl *MD = Call->getMethodDecl();
      if (!MD || !MD->getDeclName().isIdentifier() ||
          MD->getName() != "register_module" || Call->getNumArgs() < 2)
        return true;
      json Child = describeConstruction(Call->getArg(1), Ctx, Depth + 1);
      Child["name"] = constantValue(Call->getArg(0), Ctx);
      Submodules.push_back(std::move(Child));
      return true;
    }
  };
  Finder Visitor(Ctx, Depth, Module["submodules"]);
  for (const CXXConstructorDecl *Ctor : Impl->ctors()) {
    const FunctionDecl *Definition = nullptr;
    if (!Ctor->hasBody(Definition))
      continue;
    for (const CXXCtorInitializer *Init :
         cast<CXXConstructorDecl>(Definition)->inits())
      if (Init->isWritten() && Init->getInit())
        Visitor.TraverseStmt(const_cast<Expr *>(Init->getInit()));
    Visitor.TraverseStmt(Definition->getBody());
  }
  return Module;
}

json describeConstruction(const Expr *E, ASTContext &Ctx, unsigned Depth) {
  E = api::ignoreWrappers(E);
  if (!E)
    return json{{"type", nullptr}};
  const CXXRecordDecl *Impl = api::moduleClassOf(E->getType());
  if (!Impl)
    return json{{"type", nullptr}};
  if (!api::isInTorchNamespace(Impl))
    return describeUserModule(Impl, Ctx, Depth);
  json Layer{{"type", layerName(Impl)}, {"args", json::array()}};
  const auto *Construct = dyn_cast<CXXConstructExpr>(E);
  if (!Construct)
    return Layer;
  if (Layer["type"] == "Sequential") {
    Layer.erase("args");
    Layer["submodules"] = json::array();
    for (const Expr *Arg : Construct->arguments())
      Layer["submodules"].push_back(describeConstruction(Arg, Ctx, Depth + 1));
    return Layer;
  }
  for (const Expr *Arg : Construct->arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    const Expr *Bare = api::ignoreWrappers(Arg);
    if (Bare && Bare->getType()->isRecordType())
      describeOptions(Bare, Ctx, Layer);
    else
      Layer["args"].push_back(constantValue(Arg, Ctx));
  }
  return Layer;
}

const char *provenanceName(Provenance How) {
  switch (How) {
  case Provenance::DataLoader:
    return "data-loader";
  case Provenance::Factory:
    return "factory";
  case Provenance::FromBlob:
    return "from-blob";
  case Provenance::Loaded:
    return "loaded";
  case Provenance::MovedTo:
  case Provenance::ToCuda:
  case Provenance::ToCpu:
    return "moved";
  case Provenance::ModuleOutput:
    return "module-output";
  default:
    return "unknown";
  }
}

/// The dtype set by options: .dtype(k), torch::dtype(k), TensorOptions(k).
json dtypeOf(const Expr *Options) {
  std::string Name = api::dtypeNameOf(Options);
  return Name.empty() ? json(nullptr) : json(Name);
}

/// The value a function returns when its body is a single return.
const Expr *onlyReturnedValue(const FunctionDecl *FD) {
  const FunctionDecl *Definition = nullptr;
  if (!FD->hasBody(Definition))
    return nullptr;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Definition->getBody());
  if (!Body || Body->size() != 1)
    return nullptr;
  const auto *Return = dyn_cast<ReturnStmt>(Body->body_front());
  return Return ? Return->getRetValue() : nullptr;
}

/// The call that creates the data loader a batch comes from.
const CallExpr *dataLoaderCreation(const Stmt *Origin, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*Origin);
  const Expr *Loader = nullptr;
  for (unsigned Steps = 0; Steps < 16 && !Loader; ++Steps) {
    if (const auto *For = Node.get<CXXForRangeStmt>()) {
      Loader = For->getRangeInit();
      break;
    }
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      break;
    Node = Parents[0];
  }
  if (!Loader)
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Origin))
      Loader = Member->getImplicitObjectArgument();
  for (unsigned Steps = 0; Loader && Steps < 8; ++Steps) {
    Loader = api::ignoreWrappers(Loader);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Loader)) {
      Loader = Op->getNumArgs() >= 1 ? Op->getArg(0) : nullptr;
      continue;
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(Loader)) {
      Loader = Unary->getSubExpr();
      continue;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Loader)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      Loader = Var ? Var->getInit() : nullptr;
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(Loader)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && FD->getDeclName().isIdentifier() &&
          FD->getName() == "make_data_loader")
        return Call;
      // A helper of the program that builds and returns the loader.
      Loader = FD ? onlyReturnedValue(FD) : nullptr;
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

void describeDataLoader(const CallExpr *Make, ASTContext &Ctx, json &Out) {
  if (Make->getNumArgs() >= 1) {
    QualType Dataset = api::bareType(Make->getArg(0)->getType());
    Out["dataset"] = Dataset.getAsString(Ctx.getPrintingPolicy());
  }
  Out["batch_size"] = nullptr;
  Out["workers"] = 0;
  if (Make->getNumArgs() < 2)
    return;
  const Expr *Options = api::ignoreWrappers(Make->getArg(1));
  if (!Options || !Options->getType()->isRecordType()) {
    Out["batch_size"] = constantValue(Make->getArg(1), Ctx);
    return;
  }
  json Described;
  describeOptions(Options, Ctx, Described);
  if (Described.contains("args") && !Described["args"].empty())
    Out["batch_size"] = Described["args"][0];
  if (Described.contains("options"))
    for (auto &[Key, Value] : Described["options"].items())
      Out[Key] = Value;
}

} // namespace

json describeDataLoader(const CallExpr *Make, ASTContext &Ctx) {
  json Loader;
  describeDataLoader(Make, Ctx, Loader);
  Loader["sampler"] = nullptr;
  if (const FunctionDecl *FD = Make->getDirectCallee())
    if (const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs())
      if (const FunctionTemplateDecl *Template = FD->getPrimaryTemplate())
        for (unsigned I = 0; I < Args->size(); ++I) {
          const NamedDecl *Param =
              Template->getTemplateParameters()->getParam(I);
          if (Param->getName() == "Sampler" &&
              Args->get(I).getKind() == TemplateArgument::Type)
            Loader["sampler"] = api::bareType(Args->get(I).getAsType())
                                    .getAsString(Ctx.getPrintingPolicy());
        }
  return Loader;
}

json describeModule(const Expr *ModuleExpr, const DeviceFact *Created,
                    ASTContext &Ctx) {
  if (Created && Created->How == Provenance::ModuleCreated && Created->Origin)
    if (const auto *E = dyn_cast<Expr>(Created->Origin))
      return describeConstruction(E, Ctx, 0);
  // A module variable: how it was initialised.
  if (const auto *Ref =
          dyn_cast_or_null<DeclRefExpr>(api::ignoreWrappers(ModuleExpr)))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      if (const Expr *Init = Var->getInit())
        if (api::moduleClassOf(Init->getType()))
          return describeConstruction(Init, Ctx, 0);
  const CXXRecordDecl *Impl =
      ModuleExpr ? api::moduleClassOf(ModuleExpr->getType()) : nullptr;
  if (!Impl)
    return json{{"type", nullptr}};
  if (!api::isInTorchNamespace(Impl))
    return describeUserModule(Impl, Ctx, 0);
  return json{{"type", layerName(Impl)}, {"args", nullptr}};
}

json describeInput(const Expr *Input, DeviceFlow &Flow, ASTContext &Ctx) {
  if (!Input)
    return nullptr;
  FactSet Facts = Flow.devicesOf(Input);
  if (Facts.empty())
    return nullptr;
  return describeTensor(Facts.front(), Ctx);
}

json describeTensor(const DeviceFact &F, ASTContext &Ctx) {
  json Tensor{{"source", provenanceName(F.How)},
              {"shape", nullptr},
              {"dtype", nullptr}};
  if (!F.Origin)
    return Tensor;
  if (F.How == Provenance::Factory || F.How == Provenance::FromBlob) {
    const auto *Call = dyn_cast<CallExpr>(F.Origin);
    const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
    if (!FD)
      return Tensor;
    Tensor["function"] = FD->getNameAsString();
    unsigned ShapeArg = FD->getName() == "from_blob" ? 1 : 0;
    if (FD->getName() == "randint")
      ShapeArg = Call->getNumArgs() >= 3 ? Call->getNumArgs() - 2 : 1;
    for (unsigned I = ShapeArg; I < Call->getNumArgs(); ++I) {
      json Shape = shapeOf(Call->getArg(I), Ctx);
      if (!Shape.is_null()) {
        Tensor["shape"] = Shape;
        break;
      }
    }
    for (const Expr *Arg : Call->arguments())
      if (api::isTensorOptions(Arg->getType()) ||
          api::isScalarType(Arg->getType()))
        if (json Dtype = dtypeOf(Arg); !Dtype.is_null())
          Tensor["dtype"] = Dtype;
    return Tensor;
  }
  if (F.How == Provenance::DataLoader)
    if (const CallExpr *Make = dataLoaderCreation(F.Origin, Ctx))
      describeDataLoader(Make, Ctx, Tensor);
  return Tensor;
}

} // namespace torchlint::recipe
