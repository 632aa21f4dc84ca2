#include "rules/SyncInLoopCheck.h"

#include "common/Scenarios.h"

#include "analysis/DeviceFlow.h"
#include "analysis/GradMode.h"
#include "analysis/HostSyncs.h"
#include "analysis/Loops.h"
#include "analysis/Timing.h"
#include "api/TorchApi.h"
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

/// A sync, and how it is called in messages.
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

namespace {
/// E as a device-to-host synchronisation, if it is one, with its words.
std::optional<Sync> syncAt(const Expr *E, DeviceFlow &Flow,
                           const ASTContext &Ctx) {
  std::optional<HostSync> Found = hostSyncAt(E, Flow);
  if (!Found)
    return std::nullopt;
  Sync What;
  What.Tensor = Found->Tensor;
  What.Kind = formName(Found->How).str();
  std::string Object = What.Tensor ? quoted(What.Tensor, Ctx, "") : "";
  switch (Found->How) {
  case HostSync::Form::Item:
  case HostSync::Form::Cpu:
    What.Spelling = Object.empty() ? "'." + Found->Called.str() + "()'"
                                   : "'" + Object.substr(1, Object.size() - 2) +
                                         "." + Found->Called.str() + "()'";
    break;
  case HostSync::Form::ToCpu:
    What.Spelling =
        Object.empty() ? "'.to(torch::kCPU)'" : Object + " moved to the CPU";
    break;
  case HostSync::Form::Print:
    What.Spelling = "printing " + quoted(What.Tensor, Ctx, "a tensor");
    break;
  case HostSync::Form::Synchronize:
    What.Spelling = "'torch::cuda::synchronize()'";
    break;
  }
  return What;
}

/// S is part of a compound assignment (`correct += ....item()`): a value
/// summed over iterations, which can be summed on the device instead.
bool accumulated(const Stmt *S, const Stmt *Loop, ASTContext &Ctx) {
  return walkUpTo(S, Loop, Ctx, [](const Stmt *Parent, const Stmt *) {
    if (isa<CompoundAssignOperator>(Parent))
      return true;
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(Parent);
    return Op && Op->isAssignmentOp() && Op->getOperator() != OO_Equal;
  });
}

/// In a loop that runs a module without training it (inference on every
/// frame or request), a copy of the module's result to the host is the
/// program's output, once per iteration. A sum of it is not (it can stay on
/// the device), nor a second copy.
bool copiesResultOut(const Expr *Site, const Sync &What, const FactSet &Facts,
                     const Stmt *Loop, ASTContext &Ctx) {
  if (!What.Tensor || Facts.empty() || accumulated(Site, Loop, Ctx) ||
      enclosingLoop(Site, Ctx) != Loop || inPeriodicBranch(Site, Loop, Ctx))
    return false;
  bool OnGpu = false;
  for (const DeviceFact &F : Facts) {
    if (F.isKnown() && F.How != Provenance::ModuleOutput)
      return false;
    OnGpu |= F.isKnown() && F.Kind != api::DeviceKind::CPU;
  }
  return OnGpu;
}

/// The syncs of Loop's body that copy a module's result out, in source order.
class ResultCopies : public RecursiveASTVisitor<ResultCopies> {
public:
  ResultCopies(const Stmt *Loop, DeviceFlow &Flow, ASTContext &Ctx)
      : Loop(Loop), Flow(Flow), Ctx(Ctx) {}
  bool VisitExpr(Expr *E) {
    if (!First && Flow.reachable(E))
      if (std::optional<Sync> What = syncAt(E, Flow, Ctx))
        if (copiesResultOut(E, *What,
                            What->Tensor ? Flow.devicesOf(What->Tensor)
                                         : FactSet(),
                            Loop, Ctx))
          First = E;
    return !First;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  const Expr *First = nullptr;

private:
  const Stmt *Loop;
  DeviceFlow &Flow;
  ASTContext &Ctx;
};
} // namespace

void SyncInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  const Expr *Site = nullptr;
  for (const char *Id : {"method", "synchronize", "print"})
    if (!Site)
      Site = Result.Nodes.getNodeAs<Expr>(Id);
  std::optional<Sync> Found = Site ? syncAt(Site, Flow, Ctx) : std::nullopt;
  if (!Found)
    return;
  const Sync &What = *Found;
  if (!Site || Flow.index().inTemplatePattern(Site) || !Flow.reachable(Site) ||
      !Reported.insert(Site).second)
    return;
  // A synchronize right before a timed interval starts or ends is what lets
  // the interval measure its work (torch-unsynchronized-timing asks for it).
  if (What.Kind == "synchronize" && bracketsTimedInterval(Site, Flow))
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

  // One copy of an inference loop's result is what the loop is for.
  bool SecondCopy = false;
  // (Not in a loop nested in the step: one read per sample of a batch.)
  if (!Repeated.Call && Repeated.Loop == Step && !gradientUseIn(Step, Flow) &&
      copiesResultOut(Site, What, Facts, Step, Ctx)) {
    ResultCopies Copies(Step, Flow, Ctx);
    Copies.TraverseStmt(const_cast<Stmt *>(Step));
    if (!Copies.First || Copies.First == Site)
      return;
    SecondCopy = true;
  }

  bool Steers = decidesControlFlow(Site, Repeated.Call ? nullptr : Step, Ctx);
  std::string Message =
      What.Spelling + " waits for " + Device + " on every iteration" +
      runTimeCondition(Facts) +
      ", so the host blocks until all queued GPU work is "
      "done and the GPU idles until the next step is launched";
  const char *Remedy =
      What.Kind == "synchronize"
          ? "drop it, or synchronize once per epoch or logging interval"
      : SecondCopy
          ? "copy the result to the host once per iteration ('auto host = "
            "output.cpu();') and read every value from that copy"
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
