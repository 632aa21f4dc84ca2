#include "rules/SyncInLoopCheck.h"

#include "common/Scenarios.h"

#include "analysis/DeviceFlow.h"
#include "analysis/Loops.h"
#include "api/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo SyncInLoopCheck::Info = {
    "torch-sync-in-loop",
    "SyncInLoop",
    "the host waits for the GPU on every step of a training loop",
    Level::Warning,
    /*OffersFixIts=*/false,
    "performance,gpu,libtorch",
    "high",
};

namespace {
AST_MATCHER(CXXMethodDecl, isTensorMethodDecl) {
  return api::isTensorMethod(&Node);
}

/// The tensor a sync reads, and how it is called in messages.
struct Sync {
  const Expr *Tensor = nullptr; ///< null for cuda::synchronize()
  std::string Kind;             ///< item, cpu, to-cpu, print, synchronize
  std::string Spelling;         ///< 'loss.item()'
};
} // namespace

void SyncInLoopCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName("item", "cpu", "to"),
                                             isTensorMethodDecl())))
          .bind("method"),
      this);
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasName("::torch::cuda::synchronize"))))
          .bind("synchronize"),
      this);
  Finder->addMatcher(
      cxxOperatorCallExpr(hasOverloadedOperatorName("<<")).bind("print"), this);
}

void SyncInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  const Expr *Site = nullptr;
  Sync What;
  if (const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("method")) {
    llvm::StringRef Name = Call->getMethodDecl()->getName();
    What.Tensor = Call->getImplicitObjectArgument();
    if (Name == "to") {
      if (Call->getNumArgs() < 1 ||
          !api::isDeviceLike(Call->getArg(0)->getType()))
        return;
      FactSet Target = Flow.devicesOf(Call);
      if (Target.empty())
        return;
      for (const DeviceFact &F : Target)
        if (!F.isKnown() || F.Kind != api::DeviceKind::CPU)
          return;
      What.Kind = "to-cpu";
    } else {
      What.Kind = Name.str();
    }
    Site = Call;
    std::string Object = quoted(What.Tensor, Ctx, "");
    What.Spelling = Object.empty() ? "'." + Name.str() + "()'"
                                   : "'" + Object.substr(1, Object.size() - 2) +
                                         "." + Name.str() + "()'";
    if (Name == "to")
      What.Spelling =
          Object.empty() ? "'.to(torch::kCPU)'" : Object + " moved to the CPU";
  } else if (const auto *Call =
                 Result.Nodes.getNodeAs<CallExpr>("synchronize")) {
    Site = Call;
    What.Kind = "synchronize";
    What.Spelling = "'torch::cuda::synchronize()'";
  } else if (const auto *Print =
                 Result.Nodes.getNodeAs<CXXOperatorCallExpr>("print")) {
    if (Print->getNumArgs() != 2 || !api::isTensor(Print->getArg(1)->getType()))
      return;
    Site = Print;
    What.Tensor = Print->getArg(1);
    What.Kind = "print";
    What.Spelling = "printing " + quoted(What.Tensor, Ctx, "a tensor");
  }
  if (!Site || Flow.index().inTemplatePattern(Site) || !Flow.reachable(Site) ||
      !Reported.insert(Site).second)
    return;

  // Only GPU tensors make the host wait; synchronize() always does.
  std::string Device = "the GPU";
  FactSet Facts;
  if (What.Tensor) {
    Facts = Flow.devicesOf(What.Tensor);
    bool OnGpu = false;
    for (const DeviceFact &F : Facts)
      if (F.isKnown() && F.Kind != api::DeviceKind::CPU) {
        OnGpu = true;
        Device = deviceName(F);
      }
    if (!OnGpu)
      return;
  }

  Repetition Repeated = repetitionOf(Site, Flow);
  if (!Repeated)
    return;
  // A loop over the samples of a batch repeats the sync within each step.
  const Stmt *Step = stepLoopAround(Repeated.Loop, Ctx);
  if (Repeated.Call) {
    // In a helper called from the loop: the helper is the step, or the loop
    // runs one around the call.
    const FunctionDecl *Helper = Flow.index().enclosingFunction(Site);
    if (!runsStep(Helper) && !Step)
      return;
    if (!Step)
      Step = Repeated.Loop;
    if (inPeriodicBranch(Repeated.Call, Step, Ctx))
      return;
  } else if (!Step) {
    return; // once per epoch, or not a training loop
  }
  if (inPeriodicBranch(Site, Repeated.Call ? nullptr : Step, Ctx))
    return;

  bool Steers = decidesControlFlow(Site, Repeated.Call ? nullptr : Step, Ctx);
  std::string Message =
      What.Spelling + " waits for " + Device + " on every iteration" +
      runTimeCondition(Facts) +
      ", so the host blocks until all queued GPU work is "
      "done and the GPU idles until the next step is launched";
  const char *Remedy =
      What.Kind == "synchronize"
          ? "drop it, or synchronize once per epoch or logging interval"
      : Steers ? "the value decides control flow here, so it costs a sync on "
                 "every step: check it every N steps, or on the device"
               : "accumulate on the device (running_loss += loss.detach()) "
                 "and read it once per epoch or logging interval";
  // At the method's name: in a chain that spans lines (`torch::nll_loss(\n
  // ...).item<float>()`), the line that reads the value.
  SourceRange Where = Site->getSourceRange();
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Site))
    if (const auto *Callee = dyn_cast<MemberExpr>(Call->getCallee()))
      if (Callee->getMemberLoc().isValid())
        Where.setBegin(Callee->getMemberLoc());
  FindingBuilder Finding = report(Ctx, Where, Message);
  Finding.remedy(Remedy);
  noteRunTimeChoices(Finding, Facts);
  if (Steers)
    Finding.level(Level::Note);
  if (Repeated.Call)
    Finding.note(Repeated.Call->getSourceRange(),
                 "called on every iteration of a training loop here");

  const Expr *Module = api::firstModuleCall(Step);
  Finding.recipe(
      {{"scenario", scenario::SyncInLoop},
       {"sync", What.Kind},
       {"module",
        Module ? recipe::describeModule(api::calledModule(Module), nullptr, Ctx)
               : nlohmann::json(nullptr)},
       {"decides_control_flow", Steers}});
}

} // namespace torchlint
