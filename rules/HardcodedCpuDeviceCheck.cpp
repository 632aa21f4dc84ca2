#include "rules/HardcodedCpuDeviceCheck.h"

#include "common/Scenarios.h"

#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo HardcodedCpuDeviceCheck::Info = {
    "torch-hardcoded-cpu-device",
    "HardcodedCpuDevice",
    "a module or its training tensors are placed on a hard-coded CPU device",
    Level::Warning,
    /*OffersFixIts=*/true,
    "performance,gpu,libtorch",
    "high",
};

namespace {
/// The CPU on every path, and written out on each of them.
bool allCpu(const FactSet &Facts) {
  if (Facts.empty())
    return false;
  for (const DeviceFact &F : Facts)
    if (!F.isKnown() || F.Kind != api::DeviceKind::CPU || !F.Literal)
      return false;
  return true;
}

/// Tensors that meet a module's output in a loss, in the function that runs
/// the module.
class LossOperandFinder : public RecursiveASTVisitor<LossOperandFinder> {
public:
  bool VisitCallExpr(CallExpr *Call) {
    if (const Expr *Module = api::calledModule(Call)) {
      if (api::isLossModule(api::moduleClassOf(Module->getType())))
        collect(Call, api::moduleInputIndex(Call));
      return true;
    }
    if (api::isLossFunction(Call->getDirectCallee()))
      collect(Call, 0);
    return true;
  }
  std::vector<const Expr *> Operands;

private:
  void collect(const CallExpr *Call, unsigned First) {
    for (unsigned I = First; I < Call->getNumArgs(); ++I)
      if (api::isTensor(Call->getArg(I)->getType()) &&
          !isa<CXXDefaultArgExpr>(Call->getArg(I)))
        Operands.push_back(Call->getArg(I));
  }
};

/// The variable declaration whose initialiser is (or constructs a device
/// from) the literal, if the literal is used that way.
const VarDecl *declaredDevice(const Expr *Literal, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*Literal);
  for (unsigned Steps = 0; Steps < 12; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return nullptr;
    Node = Parents[0];
    if (const auto *Var = Node.get<VarDecl>())
      return api::isDeviceLike(Var->getType()) ? Var : nullptr;
    const auto *E = Node.get<Expr>();
    if (!E || !(isa<ImplicitCastExpr>(E) || isa<CXXConstructExpr>(E) ||
                isa<MaterializeTemporaryExpr>(E) ||
                isa<CXXBindTemporaryExpr>(E) || isa<ExprWithCleanups>(E) ||
                isa<CXXFunctionalCastExpr>(E) || isa<ParenExpr>(E)))
      return nullptr;
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
      if (!api::isDeviceLike(Construct->getType()) &&
          !Construct->getType()->isRecordType())
        return nullptr;
  }
  return nullptr;
}
} // namespace

void HardcodedCpuDeviceCheck::registerMatchers(MatchFinder *Finder) {
  // A placement matters where the module runs: moving a model to the CPU to
  // save it after training is not reported.
  matchers::matchModuleCalls(Finder, this);
}

void HardcodedCpuDeviceCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<Expr>("module-call");
  const Expr *Module = api::calledModule(Call);
  if (!Module || api::isParameterFree(api::moduleClassOf(Module->getType())))
    return;
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  // Inside a model's own methods, submodules run wherever the model is: the
  // placement that matters is the model's, at its own calls.
  if (const auto *Method =
          dyn_cast_or_null<CXXMethodDecl>(Flow.index().enclosingFunction(Call)))
    if (api::isModuleClass(Method->getParent()))
      return;
  llvm::SmallVector<const Expr *, 2> Inputs = api::moduleInputs(Call);

  FactSet ModuleFacts = Flow.devicesOf(Module);
  reportPlacement(ModuleFacts, Call, Module, Inputs, Ctx);

  // With the module on an accelerator, a CPU input is a device mismatch, and
  // torch-device-mismatch says so.
  for (const DeviceFact &F : ModuleFacts)
    if (F.isKnown() && F.Kind != api::DeviceKind::CPU)
      return;
  for (const Expr *Input : Inputs)
    reportPlacement(Flow.devicesOf(Input), Call, Input, {}, Ctx);
}

void HardcodedCpuDeviceCheck::reportPlacement(
    const FactSet &Placement, const Expr *Call, const Expr *Placed,
    llvm::ArrayRef<const Expr *> ModuleInputs, ASTContext &Ctx) {
  if (!allCpu(Placement))
    return;
  bool IsModule = Placed == api::calledModule(Call);
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  for (const DeviceFact &F : Placement) {
    if (!F.isKnown() || !Reported.insert(F.Literal).second)
      continue;
    std::string Name =
        quoted(Placed, Ctx, IsModule ? "the module" : "the input");
    std::string Message =
        named(IsModule ? "module" : "input", Placed, Ctx) +
        " is placed on a hard-coded CPU device, so it runs on the CPU even on "
        "a machine with a GPU";
    FindingBuilder Finding = report(Ctx, F.Literal->getSourceRange(), Message);
    Finding.remedy(
        "choose the device at run time: 'torch::cuda::is_available() "
        "? torch::kCUDA : torch::kCPU'");
    Finding.flowStep(F.Literal->getSourceRange(), "the CPU is written here");
    if (F.Origin && F.Origin != F.Literal)
      Finding.pathNote(F.originRange(), explainFact(F, Name, Ctx));
    Finding.pathNote(Call->getSourceRange(),
                     IsModule ? Name + " runs here" : Name + " is passed here");

    // Choosing the device by availability only helps when the inputs, and
    // what meets the output in a loss, follow the same variable; otherwise
    // it turns a slow program into a failing one, and those tensors are
    // pointed out instead.
    const VarDecl *Declared =
        IsModule ? declaredDevice(F.Literal, Ctx) : nullptr;
    bool Follows = Declared && !Declared->isConstexpr();
    if (Declared) {
      std::vector<const Expr *> MustFollow(ModuleInputs.begin(),
                                           ModuleInputs.end());
      if (const FunctionDecl *Function = Flow.index().enclosingFunction(Call)) {
        LossOperandFinder Losses;
        Losses.TraverseDecl(const_cast<FunctionDecl *>(Function));
        MustFollow.insert(MustFollow.end(), Losses.Operands.begin(),
                          Losses.Operands.end());
      }
      for (const Expr *Tensor : MustFollow) {
        FactSet TensorFacts = Flow.devicesOf(Tensor);
        bool OnDeclared = !TensorFacts.empty();
        for (const DeviceFact &T : TensorFacts)
          if (!T.isKnown() ||
              (T.Symbol != Declared && T.How != Provenance::ModuleOutput))
            OnDeclared = false;
        if (!OnDeclared) {
          Follows = false;
          Finding.note(Tensor->getSourceRange(),
                       quoted(Tensor, Ctx, "this tensor") +
                           " is not moved with '" + Declared->getName().str() +
                           "'; move it too before choosing the GPU");
        }
      }
    }
    if (Follows)
      offerAvailabilityCheck(Finding, F.Literal, Ctx);

    nlohmann::json Recipe{{"scenario", scenario::HardcodedCpuDevice}};
    if (IsModule)
      Recipe["module"] = recipe::describeModule(Placed, nullptr, Ctx);
    else
      Recipe["input"] = recipe::describeTensor(F, Ctx);
    Finding.recipe(std::move(Recipe));
  }
}

void HardcodedCpuDeviceCheck::offerAvailabilityCheck(FindingBuilder &Finding,
                                                     const Expr *Literal,
                                                     ASTContext &Ctx) {
  const Expr *Bare = api::ignoreWrappers(Literal);
  if (!isa<DeclRefExpr>(Bare) && !isa<StringLiteral>(Bare))
    return;
  Finding.replace(Literal->getSourceRange(),
                  "torch::cuda::is_available() ? torch::kCUDA : torch::kCPU");
}

} // namespace torchlint
