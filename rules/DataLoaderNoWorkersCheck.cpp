#include "rules/DataLoaderNoWorkersCheck.h"

#include "common/Scenarios.h"

#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleOptionInfo DataLoaderNoWorkersCheck::Workers = {"Workers", 0};
static const RuleOptionInfo Settings[] = {DataLoaderNoWorkersCheck::Workers};

const RuleInfo DataLoaderNoWorkersCheck::Info = {
    "torch-dataloader-no-workers",
    "DataLoaderNoWorkers",
    "a data loader loads every batch on the training thread",
    Level::Warning,
    /*OffersFixIts=*/true,
    "performance,data-loading,libtorch",
    "high",
    Settings,
};

namespace {
bool isDataLoaderOptions(QualType T) {
  const CXXRecordDecl *RD = api::bareType(T)->getAsCXXRecordDecl();
  return RD &&
         RD->getQualifiedNameAsString() == "torch::data::DataLoaderOptions";
}

/// The dataset a (possibly mapped) dataset type reads from.
const CXXRecordDecl *sourceDataset(QualType Dataset) {
  const CXXRecordDecl *RD = api::bareType(Dataset)->getAsCXXRecordDecl();
  for (unsigned Depth = 0; RD && Depth < 8; ++Depth) {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
    if (!Spec ||
        Spec->getQualifiedNameAsString() != "torch::data::datasets::MapDataset")
      return RD;
    const TemplateArgument &Source = Spec->getTemplateArgs()[0];
    if (Source.getKind() != TemplateArgument::Type)
      return nullptr;
    RD = api::bareType(Source.getAsType())->getAsCXXRecordDecl();
  }
  return RD;
}

/// Datasets that hold every example in memory, so that a batch costs only
/// indexing and stacking.
const char *inMemoryDatasetName(const CXXRecordDecl *RD) {
  if (!RD)
    return nullptr;
  std::string Name = RD->getQualifiedNameAsString();
  if (Name == "torch::data::datasets::MNIST")
    return "MNIST";
  if (Name == "torch::data::datasets::TensorDataset")
    return "TensorDataset";
  return nullptr;
}

/// A call that reads what it is given: a tensor's method, a standard
/// container's, or a standard helper (std::move, std::get, std::min); not
/// a stream's, which reads files.
bool readsOnly(const FunctionDecl *FD) {
  if (!FD)
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    const CXXRecordDecl *Class = MD->getParent();
    // Operators ([] above all) have no identifier to ask isTensorMethod with.
    if (api::isTensorMethod(MD) ||
        llvm::is_contained({std::string("at::Tensor"), std::string("at::TensorBase")},
                           Class->getQualifiedNameAsString()))
      return true;
    if (!Class->isInStdNamespace() || !Class->getIdentifier())
      return false;
    return llvm::StringSwitch<bool>(Class->getName())
        .Cases("vector", "deque", "array", "map", "unordered_map", true)
        .Cases("pair", "tuple", "shared_ptr", "unique_ptr", "optional", true)
        .Cases("basic_string", "__normal_iterator", true)
        .Default(false);
  }
  return FD->isInStdNamespace() && FD->getIdentifier() &&
         llvm::StringSwitch<bool>(FD->getName())
             .Cases("move", "forward", "get", "min", "max", "size", true)
             .Default(false);
}

/// A dataset of the user's whose get() only reads what the object already
/// holds: elements of its containers and tensors, copied or cloned. Anything
/// else it calls (a decoder, a file read, a function of its own) may cost.
bool getReadsOnlyMembers(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition() || api::isInTorchNamespace(RD))
    return false;
  const FunctionDecl *Get = nullptr;
  for (const CXXMethodDecl *MD : RD->getDefinition()->methods())
    if (MD->getDeclName().isIdentifier() && MD->getName() == "get")
      MD->hasBody(Get);
  if (!Get)
    return false;
  bool ReadsMember = false;
  for (const BoundNodes &Nodes :
       match(findAll(stmt(anyOf(callExpr().bind("call"),
                                memberExpr(hasObjectExpression(cxxThisExpr()),
                                           member(fieldDecl()))
                                    .bind("member")))),
             *Get->getBody(), Get->getASTContext())) {
    if (Nodes.getNodeAs<MemberExpr>("member")) {
      ReadsMember = true;
      continue;
    }
    const auto *Call = Nodes.getNodeAs<CallExpr>("call");
    if (!readsOnly(dyn_cast_or_null<FunctionDecl>(Call->getCalleeDecl())))
      return false;
  }
  return ReadsMember;
}

/// Datasets that hold every example in memory, so that a batch costs only
/// indexing and stacking: the name to say, or null.
std::string inMemoryDataset(const CXXRecordDecl *RD) {
  if (const char *Known = inMemoryDatasetName(RD))
    return Known;
  if (getReadsOnlyMembers(RD))
    return RD->getNameAsString();
  return "";
}

/// Nothing in the user's code of the unit names a device or calls .cuda():
/// a program that never leaves the CPU, with no GPU to keep waiting.
bool namesNoDevice(ASTContext &Ctx, const UserCode &Code) {
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    Finder(const SourceManager &SM, const UserCode &Code)
        : SM(SM), Code(Code) {}
    bool TraverseDecl(Decl *D) {
      if (D && !isa<TranslationUnitDecl>(D) &&
          !Code.isAnalyzed(D->getLocation(), SM))
        return true;
      return RecursiveASTVisitor::TraverseDecl(D);
    }
    bool VisitExpr(Expr *E) {
      Found = api::isDevice(E->getType()) || api::isDeviceType(E->getType());
      if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E))
        if (const CXXMethodDecl *MD = Call->getMethodDecl())
          Found |= MD->getDeclName().isIdentifier() && MD->getName() == "cuda";
      return !Found;
    }
    bool VisitDeclaratorDecl(DeclaratorDecl *D) {
      Found = api::isDevice(D->getType()) || api::isDeviceType(D->getType());
      return !Found;
    }
    bool Found = false;

  private:
    const SourceManager &SM;
    const UserCode &Code;
  } Devices(Ctx.getSourceManager(), Code);
  Devices.TraverseAST(Ctx);
  return !Devices.Found;
}

/// What the options expression says about workers.
struct WorkersSetting {
  /// `.workers(n)` as written, the last one applied; null when never set.
  const Expr *Value = nullptr;
  /// The options cannot be followed (a parameter, a function's result).
  bool Unknown = false;
};

/// Follows `DataLoaderOptions(...).batch_size(b).workers(w)` to its start.
void readChain(const Expr *E, WorkersSetting &Setting) {
  for (unsigned Depth = 0; E && Depth < 32; ++Depth) {
    E = E->IgnoreUnlessSpelledInSource();
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = Call->getMethodDecl();
      if (!MD || !isDataLoaderOptions(MD->getThisType()->getPointeeType())) {
        Setting.Unknown = true;
        return;
      }
      if (!Setting.Value && MD->getName() == "workers" &&
          Call->getNumArgs() == 1)
        Setting.Value = Call->getArg(0);
      E = Call->getImplicitObjectArgument();
      continue;
    }
    if (isa<CXXConstructExpr>(E) || isa<CXXFunctionalCastExpr>(E) ||
        isa<InitListExpr>(E))
      return;
    Setting.Unknown = true;
    return;
  }
}

/// `options.workers(n)` statements on a local options variable.
class WorkersCalls : public RecursiveASTVisitor<WorkersCalls> {
public:
  explicit WorkersCalls(const VarDecl *Options) : Options(Options) {}
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    const CXXMethodDecl *MD = Call->getMethodDecl();
    if (!MD || !MD->getDeclName().isIdentifier() ||
        MD->getName() != "workers" || Call->getNumArgs() != 1)
      return true;
    // options.batch_size(64).workers(2): the setters return the options.
    const Expr *Root = Call->getImplicitObjectArgument()->IgnoreParenImpCasts();
    while (const auto *Inner = dyn_cast<CXXMemberCallExpr>(Root))
      Root = Inner->getImplicitObjectArgument()->IgnoreParenImpCasts();
    const auto *Ref = dyn_cast<DeclRefExpr>(Root);
    if (Ref && Ref->getDecl() == Options)
      Values.push_back(Call->getArg(0));
    return true;
  }
  const VarDecl *Options;
  std::vector<const Expr *> Values;
};

/// The function whose body evaluates E; null when E is not evaluated there
/// (in a decltype or sizeof, a global's initialiser).
const FunctionDecl *evaluatingFunction(const Expr *E, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*E);
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty() || Parents[0].get<TypeLoc>() ||
        Parents[0].get<UnaryExprOrTypeTraitExpr>() ||
        Parents[0].get<CXXNoexceptExpr>())
      return nullptr;
    Node = Parents[0];
    if (const auto *FD = Node.get<FunctionDecl>())
      return FD;
  }
  return nullptr;
}
} // namespace

void DataLoaderNoWorkersCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasName("::torch::data::make_data_loader"))))
          .bind("make"),
      this);
}

void DataLoaderNoWorkersCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Make = Result.Nodes.getNodeAs<CallExpr>("make");
  const FunctionDecl *FD = Make->getDirectCallee();
  const FunctionDecl *Function = evaluatingFunction(Make, Ctx);
  if (!FD || !Function || Make->getNumArgs() == 0)
    return;
  const Expr *OptionsArg = nullptr;
  unsigned OptionsIndex = 0;
  for (unsigned I = 0; I < FD->getNumParams() && I < Make->getNumArgs(); ++I)
    if (isDataLoaderOptions(FD->getParamDecl(I)->getType())) {
      OptionsArg = Make->getArg(I);
      OptionsIndex = I;
    }
  if (!OptionsArg)
    return;

  // How the options were written, and the fix that sets the workers there.
  enum class Form { Defaulted, BatchSizeOnly, Chain, Variable } How;
  WorkersSetting Setting;
  const Expr *Written = OptionsArg->IgnoreUnlessSpelledInSource();
  const VarDecl *OptionsVar = nullptr;
  if (isa<CXXDefaultArgExpr>(OptionsArg)) {
    How = Form::Defaulted;
  } else if (!isDataLoaderOptions(Written->getType())) {
    How = Form::BatchSizeOnly; // the implicit DataLoaderOptions(batch_size)
  } else if (const auto *Ref = dyn_cast<DeclRefExpr>(Written)) {
    How = Form::Variable;
    OptionsVar = dyn_cast<VarDecl>(Ref->getDecl());
    if (!OptionsVar || !OptionsVar->isLocalVarDecl() ||
        OptionsVar->getType()->isReferenceType())
      return;
    if (OptionsVar->getInit())
      readChain(OptionsVar->getInit(), Setting);
    WorkersCalls Calls(OptionsVar);
    Calls.TraverseStmt(Function->getBody());
    if (!Calls.Values.empty())
      Setting.Value = Calls.Values.back();
  } else {
    How = Form::Chain;
    readChain(Written, Setting);
  }
  if (Setting.Unknown)
    return;
  if (Setting.Value) {
    std::optional<llvm::APSInt> Workers =
        Setting.Value->getIntegerConstantExpr(Ctx);
    if (!Workers || *Workers != 0)
      return;
  }

  std::string InMemory =
      inMemoryDataset(sourceDataset(Make->getArg(0)->getType()));
  // Collating data already in memory on the training thread of a program
  // that never uses a GPU leaves nothing waiting: workers would only compete
  // with the step for the same cores.
  if (!InMemory.empty() && namesNoDevice(Ctx, context().userCode()))
    return;
  unsigned Suggested = SuggestedWorkers ? SuggestedWorkers
                       : InMemory.empty() ? 4
                                          : 2;
  std::string N = std::to_string(Suggested);

  std::string What;
  switch (How) {
  case Form::Defaulted:
    What = "data loader has no worker threads (DataLoaderOptions not given)";
    break;
  case Form::BatchSizeOnly:
    What = "data loader has no worker threads (make_data_loader(dataset, "
           "batch_size) means 0 workers)";
    break;
  case Form::Chain:
  case Form::Variable:
    What = Setting.Value ? "data loader has no worker threads ('workers(0)')"
                         : "data loader has no worker threads (workers "
                           "defaults to 0)";
    break;
  }
  std::string Message, Remedy;
  if (!InMemory.empty()) {
    Message = What + ", so batches are collated on the training thread "
                     "between steps";
    Remedy = "the " + InMemory +
             " dataset is in memory, so this costs little, but " + N +
             " workers would still overlap it with the step";
  } else {
    Message = What + ", so every batch is read, transformed and collated on "
                     "the training thread while the model waits";
    Remedy = "use " + N +
             " workers (one per spare core when get() reads or decodes "
             "files)";
  }
  FindingBuilder Finding = report(Ctx, Make->getSourceRange(), Message);
  Finding.remedy(Remedy);
  if (!InMemory.empty())
    Finding.level(Level::Note);

  std::string Workers = ".workers(" + N + ")";
  switch (How) {
  case Form::Defaulted:
    if (OptionsIndex > 0 &&
        !isa<CXXDefaultArgExpr>(Make->getArg(OptionsIndex - 1)))
      Finding.insertAfter(Make->getArg(OptionsIndex - 1)->getEndLoc(),
                          ", torch::data::DataLoaderOptions()" + Workers);
    break;
  case Form::BatchSizeOnly:
    Finding.insertBefore(Written->getBeginLoc(),
                         "torch::data::DataLoaderOptions(");
    Finding.insertAfter(Written->getEndLoc(), ")" + Workers);
    break;
  case Form::Chain:
    if (Setting.Value)
      Finding.replace(Setting.Value->getSourceRange(), N);
    else
      Finding.insertAfter(Written->getEndLoc(), Workers);
    break;
  case Form::Variable:
    Finding.note(OptionsVar->getLocation(), "options declared here");
    if (Setting.Value)
      Finding.replace(Setting.Value->getSourceRange(), N);
    else if (OptionsVar->getInitStyle() == VarDecl::CInit &&
             OptionsVar->getInit() &&
             isDataLoaderOptions(OptionsVar->getInit()
                                     ->IgnoreUnlessSpelledInSource()
                                     ->getType()))
      Finding.insertAfter(OptionsVar->getInit()->getEndLoc(), Workers);
    break;
  }

  nlohmann::json Recipe = recipe::describeDataLoader(Make, Ctx);
  Recipe["scenario"] = scenario::DataLoaderNoWorkers;
  Recipe["suggested_workers"] = Suggested;
  Finding.recipe(std::move(Recipe));
}

} // namespace torchlint
