#include "rules/ModuleNeverMovedCheck.h"

#include "common/Scenarios.h"

#include "analysis/HostCopies.h"
#include "analysis/Loops.h"
#include "analysis/StepContext.h"
#include "matchers/AutocastApi.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

// The prose of the rule is its docs page,
// docs/rules/torch-module-never-moved.md.
const RuleInfo ModuleNeverMovedCheck::Info = {
    "torch-module-never-moved",
    "ModuleNeverMoved",
    "a module runs on the CPU in a loop of a program that uses CUDA: it is "
    "never moved to the GPU",
    Level::Warning,
    /*OffersFixIts=*/false,
    "performance,gpu,libtorch",
    "high",
};

namespace {
/// Every path gives the module as its constructor made it, on the CPU.
bool neverMoved(const FactSet &Facts) {
  return !Facts.empty() && llvm::all_of(Facts, [](const DeviceFact &F) {
    return F.Kind == api::DeviceKind::CPU && F.How == Provenance::ModuleCreated;
  });
}

/// Where the module's inputs live, as the recipe says it: "gpu" when some
/// path puts one on an accelerator, "cpu" when all are on the host.
std::string inputsOn(llvm::ArrayRef<const Expr *> Inputs, DeviceFlow &Flow) {
  bool AllCpu = !Inputs.empty();
  for (const Expr *Input : Inputs) {
    FactSet Facts = Flow.devicesOf(Input);
    if (reachesAccelerator(Facts))
      return "gpu";
    AllCpu = AllCpu && !Facts.empty() &&
             llvm::all_of(Facts, [](const DeviceFact &F) {
               return F.Kind == api::DeviceKind::CPU;
             });
  }
  return AllCpu ? "cpu" : "unknown";
}
/// The module is given a device where it is built (a loss that makes its
/// targets on it): it manages its device itself.
bool builtWithDevice(const DeviceFact &Created) {
  llvm::ArrayRef<const Expr *> Args;
  const Stmt *Origin = Created.Origin;
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Origin))
    Args = llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs());
  else if (const auto *Call = dyn_cast_or_null<CallExpr>(Origin))
    Args = llvm::ArrayRef(Call->getArgs(), Call->getNumArgs());
  return llvm::any_of(Args, [](const Expr *Arg) {
    const Expr *Written = Arg->IgnoreUnlessSpelledInSource();
    return api::isDeviceLike((Written ? Written : Arg)->getType());
  });
}

/// The function turns on autocast for the CPU: it computes on the CPU on
/// purpose.
bool autocastsOnCpu(const FunctionDecl *FD, ASTContext &Ctx) {
  struct Finder : RecursiveASTVisitor<Finder> {
    explicit Finder(ASTContext &Ctx) : Ctx(Ctx) {}
    bool VisitCallExpr(CallExpr *Call) {
      std::optional<autocast::AutocastCall> Read =
          autocast::classify(Call, Ctx);
      Found |= Read && Read->What == autocast::Action::Enable &&
               Read->Device == api::DeviceKind::CPU;
      return !Found;
    }
    ASTContext &Ctx;
    bool Found = false;
  } Search(Ctx);
  if (FD && FD->hasBody())
    Search.TraverseStmt(FD->getBody());
  return Search.Found;
}
} // namespace

void ModuleNeverMovedCheck::registerMatchers(MatchFinder *Finder) {
  matchers::matchModuleCalls(Finder, this);
}

void ModuleNeverMovedCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<Expr>("module-call");
  const Expr *Module = Call ? api::calledModule(Call) : nullptr;
  if (!Module)
    return;
  // A module without parameters (a loss, an activation) computes where its
  // inputs are.
  const CXXRecordDecl *Impl = api::moduleClassOf(Module->getType());
  if (api::isParameterFree(Impl))
    return;
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  if (Flow.index().inTemplatePattern(Call) || !Flow.reachable(Call))
    return;
  FactSet Facts = Flow.devicesOf(Module);
  if (!neverMoved(Facts))
    return;
  StepContext &Steps = context().stepContext(Ctx);
  Repetition Repeated = repetitionOf(Call, Flow, &Steps);
  if (!Repeated || Steps.programUsesCuda() != true ||
      autocastsOnCpu(Flow.index().enclosingFunction(Call), Ctx))
    return;
  const DeviceFact &Created = Facts.front();
  if (llvm::any_of(Facts, builtWithDevice))
    return;
  const void *Key = Created.Origin
                        ? static_cast<const void *>(Created.Origin)
                        : static_cast<const void *>(Created.OriginDecl);
  if (Key && !Reported.insert(Key).second)
    return;

  std::string Name = quoted(Module, Ctx, "the module");
  // The name as code, for the remedy's snippets.
  std::string Code = llvm::StringRef(Name).starts_with("'")
                         ? Name.substr(1, Name.size() - 2)
                         : std::string("model");
  bool Scripted =
      api::isScriptModuleClass(api::moduleClassOf(Module->getType()));
  FindingBuilder Finding =
      report(Ctx, Call->getSourceRange(),
             named("module", Module, Ctx) +
                 " is never moved to the GPU, so it runs on the CPU on every "
                 "iteration although the program uses CUDA");
  Finding.remedy(
      Scripted ? "move it once before the loop ('" + Code +
                     ".to(device)'), or load it onto the device "
                     "('torch::jit::load(path, device)')"
               : "move it once before the loop ('" + Code +
                     "->to(device)'), or load its weights onto the device "
                     "('torch::load(" +
                     Code + ", path, device)')");
  if (Created.originRange().isValid())
    Finding.note(Created.originRange(),
                 Name + " is created on the CPU here, and no path moves it "
                        "before the loop runs it");
  noteRepeatingCall(Finding, Repeated);
  if (const Stmt *Cuda = Steps.unitCudaUse())
    Finding.note(Cuda->getSourceRange(), "the program asks for CUDA here");

  nlohmann::json Recipe{
      {"scenario", scenario::ModuleNeverMoved},
      {"module", recipe::describeModule(Module, nullptr, Ctx)},
      {"inputs_on", inputsOn(api::moduleInputs(Call), Flow)},
      {"work", Steps.programTrains() == true ? "training" : "inference"}};
  Finding.recipe(std::move(Recipe));
}

} // namespace torchlint
