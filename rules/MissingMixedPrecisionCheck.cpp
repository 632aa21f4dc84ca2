#include "rules/MissingMixedPrecisionCheck.h"

#include "common/Scenarios.h"

#include "analysis/DeviceFlow.h"
#include "analysis/Loops.h"
#include "analysis/ModuleLayers.h"
#include "analysis/StepContext.h"
#include "matchers/AutocastApi.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo MissingMixedPrecisionCheck::Info = {
    "torch-missing-mixed-precision",
    "MissingMixedPrecision",
    "a CUDA training loop runs matrix-heavy layers in plain float32",
    Level::Note,
    /*OffersFixIts=*/false,
    "performance,mixed-precision,gpu,libtorch",
    "medium",
};

namespace {
/// What one iteration of a loop does, in its body and in the user
/// functions it calls (one level).
class StepFinder : public RecursiveASTVisitor<StepFinder> {
public:
  StepFinder(const UserCode &Code, const SourceManager &SM, StepContext &Steps)
      : Code(Code), SM(SM), Steps(Steps) {}
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitCallExpr(CallExpr *Call) {
    if (api::isBackwardCall(Call)) {
      if (!Backward)
        Backward = Call;
    } else if (api::isOptimizerCall(Call)) {
      if (!Step && Call->getDirectCallee()->getName() == "step")
        Step = cast<CXXMemberCallExpr>(Call);
    } else if (api::isModuleCall(Call)) {
      ModuleCalls.push_back(Call);
    } else if (const FunctionDecl *Callee = Call->getDirectCallee();
               Callee && Nested == 0 && Callee->hasBody() &&
               Code.isAnalyzed(Callee->getLocation(), SM)) {
      CallsStep |= Steps.workOf(Callee).Runs;
      ++Nested;
      TraverseStmt(Callee->getBody());
      --Nested;
    }
    return true;
  }
  const CallExpr *Backward = nullptr;
  const CXXMemberCallExpr *Step = nullptr;
  std::vector<const CallExpr *> ModuleCalls;
  /// The loop calls a function that runs a training step.
  bool CallsStep = false;

private:
  const UserCode &Code;
  const SourceManager &SM;
  StepContext &Steps;
  unsigned Nested = 0;
};

bool allowsTf32(const CXXMemberCallExpr *Call, ASTContext &Ctx) {
  const CXXMethodDecl *MD = Call->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() || Call->getNumArgs() < 1)
    return false;
  const Expr *Arg = Call->getArg(0);
  if (MD->getName() == "setAllowTF32CuBLAS")
    return api::constantBool(Arg, Ctx).value_or(true);
  if (MD->getName() == "setFloat32MatmulPrecision") {
    nlohmann::json Precision = recipe::constantValue(Arg, Ctx);
    return !Precision.is_string() || Precision != "highest";
  }
  return false;
}

bool convertsToLowerPrecision(const CXXMemberCallExpr *Call) {
  return api::isModuleTo(Call->getMethodDecl()) &&
         llvm::any_of(Call->arguments(), [](const Expr *Arg) {
           std::string Dtype = api::scalarTypeName(Arg);
           return Dtype == "float16" || Dtype == "bfloat16";
         });
}
} // namespace

void MissingMixedPrecisionCheck::registerMatchers(MatchFinder *Finder) {
  // One matcher per loop kind: a stmt() matcher would be tried on every
  // statement and expression of the unit.
  Finder->addMatcher(forStmt().bind("loop"), this);
  Finder->addMatcher(cxxForRangeStmt().bind("loop"), this);
  Finder->addMatcher(whileStmt().bind("loop"), this);
  Finder->addMatcher(doStmt().bind("loop"), this);
  Finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(
                                  "set_enabled", "set_autocast_enabled"))))
                         .bind("autocast"),
                     this);
  Finder->addMatcher(cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName(
                                           "setAllowTF32CuBLAS",
                                           "setFloat32MatmulPrecision", "to"))))
                         .bind("setting"),
                     this);
}

void MissingMixedPrecisionCheck::check(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  // What libtorch's own headers do says nothing of the program.
  const Stmt *Matched = Result.Nodes.getNodeAs<Stmt>("loop");
  for (const char *Id : {"autocast", "setting"})
    if (!Matched)
      Matched = Result.Nodes.getNodeAs<Stmt>(Id);
  if (!Matched || !context().userCode().isAnalyzed(Matched->getBeginLoc(),
                                                   Ctx->getSourceManager()))
    return;
  if (const auto *Loop = Result.Nodes.getNodeAs<Stmt>("loop")) {
    Loops.push_back(Loop);
  } else if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("autocast")) {
    std::optional<autocast::AutocastCall> Read = autocast::classify(Call, *Ctx);
    LowerPrecision |= Read && Read->What == autocast::Action::Enable &&
                      Read->Device != api::DeviceKind::CPU;
  } else if (const auto *Setting =
                 Result.Nodes.getNodeAs<CXXMemberCallExpr>("setting")) {
    LowerPrecision |=
        allowsTf32(Setting, *Ctx) || convertsToLowerPrecision(Setting);
  }
}

void MissingMixedPrecisionCheck::onEndOfTranslationUnit() {
  if (Ctx && !LowerPrecision) {
    const SourceManager &SM = Ctx->getSourceManager();
    DeviceFlow &Flow = context().deviceFlow(*Ctx);
    StepContext &Steps = context().stepContext(*Ctx);
    std::vector<const Stmt *> Reported;
    for (const Stmt *Loop : Loops) {
      LoopRole Role = Steps.roleOf(Loop);
      if (Role == LoopRole::Epoch || Flow.index().inTemplatePattern(Loop))
        continue;
      // Once per training loop: not again for a loop nested in one.
      if (llvm::any_of(Reported, [&](const Stmt *Outer) {
            return SM.isPointWithin(Loop->getBeginLoc(), Outer->getBeginLoc(),
                                    Outer->getEndLoc());
          }))
        continue;
      StepFinder Work(context().userCode(), SM, Steps);
      Work.TraverseStmt(const_cast<Stmt *>(Loop));
      if (!Work.Backward || (Role == LoopRole::Other && !Work.CallsStep))
        continue;
      const CallExpr *ModuleCall = nullptr;
      const CXXRecordDecl *Layer = nullptr;
      FactSet Devices;
      for (const CallExpr *Call : Work.ModuleCalls) {
        const Expr *Module = api::calledModule(Call);
        Devices = Flow.devicesOf(Module);
        bool OnGpu =
            !Devices.empty() && llvm::all_of(Devices, [](const DeviceFact &F) {
              return F.Kind == api::DeviceKind::CUDA;
            });
        if (OnGpu && (Layer = context().moduleLayers(*Ctx).find(
                          Module, isMatrixLayer))) {
          ModuleCall = Call;
          break;
        }
      }
      if (!ModuleCall)
        continue;
      Reported.push_back(Loop);
      const Expr *Module = api::calledModule(ModuleCall);
      std::string Name = named("module", Module, *Ctx);
      FindingBuilder Finding = report(
          *Ctx, SourceRange(Loop->getBeginLoc()),
          "this CUDA training loop runs " + layerName(Layer) +
              " layers in plain float32, with neither autocast nor TF32" +
              runTimeCondition(Devices) +
              ", so "
              "the GPU's tensor cores, which run such matrix products many "
              "times faster, stay idle");
      Finding.remedy("consider bfloat16 autocast around the forward pass and "
                     "the loss, or at::globalContext().setAllowTF32CuBLAS("
                     "true)");
      Finding.note(ModuleCall->getSourceRange(),
                   Name + " runs here, on " + acceleratorName(Devices));
      noteRunTimeChoices(Finding, Devices);
      Finding.recipe(
          {{"scenario", scenario::MissingMixedPrecision},
           {"device", "cuda"},
           {"dtype", "float32"},
           {"module", recipe::describeModule(Module, nullptr, *Ctx)},
           {"input",
            recipe::describeInput(api::moduleInput(ModuleCall), Flow, *Ctx)},
           {"optimizer", recipe::describeOptimizer(Work.Step)},
           {"backward", recipe::describeBackward(
                            Work.Backward, context().autocastFlow(*Ctx))}});
    }
  }
  Loops.clear();
  LowerPrecision = false;
}

} // namespace torchlint
