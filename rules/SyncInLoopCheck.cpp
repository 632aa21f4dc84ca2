#include "rules/SyncInLoopCheck.h"

#include "common/Scenarios.h"

#include "analysis/DeviceFlow.h"
#include "analysis/GradMode.h"
#include "analysis/HostSyncs.h"
#include "analysis/Loops.h"
#include "analysis/StepContext.h"
#include "analysis/Timing.h"
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
      cxxMemberCallExpr(
          callee(cxxMethodDecl(hasAnyName("item", "cpu", "to", "nonzero",
                                          "nonzero_numpy", "argwhere",
                                          "masked_select", "unique",
                                          "unique_consecutive", "equal",
                                          "allclose", "is_nonzero"),
                               isTensorMethodDecl())))
          .bind("method"),
      this);
  // The functions that wait for their operands' values (HostSyncs).
  Finder->addMatcher(
      callExpr(callee(functionDecl(
                   unless(cxxMethodDecl()),
                   hasAnyName("nonzero", "argwhere", "masked_select", "unique",
                              "unique_consecutive", "_unique", "_unique2",
                              "unique_dim", "equal", "allclose", "where",
                              "clip_grad_norm_"))))
          .bind("hidden"),
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
  case HostSync::Form::Hidden:
    if (!isa<CXXMemberCallExpr>(E)) {
      What.Spelling =
          "'" + Found->Called.str() + "(" +
          (Object.empty() ? "" : Object.substr(1, Object.size() - 2)) + ")'";
      break;
    }
    [[fallthrough]];
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
/// frame or request), a copy of the step's result to the host is the
/// program's output, once per iteration: the module's own output, or a
/// tensor that post-processing on the device made of it, copied out whole
/// or filtered by its values (the host waits for the step's work there
/// whatever it reads first). A scalar read of something else (a metric, a
/// loss) can stay on the device; so can a sum of the result, or a second
/// copy. Loop is the step loop, or null for the body of a function called
/// once per step.
bool copiesResultOut(const Expr *Site, const Sync &What, const FactSet &Facts,
                     const Stmt *Loop, ASTContext &Ctx) {
  if (!What.Tensor || Facts.empty() || accumulated(Site, Loop, Ctx) ||
      enclosingLoop(Site, Ctx) != Loop || inPeriodicBranch(Site, Loop, Ctx))
    return false;
  bool WholeTensor = What.Kind != "item" && What.Kind != "print";
  bool OnGpu = false;
  for (const DeviceFact &F : Facts) {
    if (F.isKnown() && F.How != Provenance::ModuleOutput && !WholeTensor)
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
  for (const char *Id : {"method", "synchronize", "print", "hidden"})
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

  // A step loop runs it: around it (through loops over the samples of a
  // batch or the boxes of a frame), or around a call of its function, in
  // this unit or another. Once per epoch is not per step.
  StepContext::PerStep Repeated = context().stepContext(Ctx).perStepAt(Site);
  if (!Repeated)
    return;
  const Stmt *Step = Repeated.Loop;
  if (Repeated.Call && inPeriodicBranch(Repeated.Call, Step, Ctx))
    return;
  // Within Site's function: up to the step loop, or up to the body of a
  // function that runs once per step.
  const Stmt *Local = Repeated.Call ? nullptr : Step;
  if (inPeriodicBranch(Site, Local, Ctx))
    return;

  // The test that ends a loop which decodes until an end token, or iterates
  // until it converges: its next iteration cannot start without the value.
  // Not an operation whose result stays a device tensor (NMS's `nonzero()`
  // until no box is left): the loop tests its size, but computes on with it
  // one element at a time where one batched operation would wait once.
  bool DeviceResult = What.Kind == formName(HostSync::Form::Hidden) &&
                      api::isTensor(Site->getType());
  if (const Stmt *Nearest = enclosingLoop(Site, Ctx);
      Nearest && !DeviceResult && decidesLoopExit(Site, Nearest, Ctx))
    return;

  // One copy of an inference step's result is what the step is for: in the
  // step loop's body, or in the body of a function called once per step.
  const FunctionDecl *Function = Flow.index().enclosingFunction(Site);
  const Stmt *Scope = Local ? Local : Function ? Function->getBody() : nullptr;
  bool SecondCopy = false;
  // (Not in a loop nested in the step: one read per sample of a batch; nor
  // in a function the step calls from such a loop, once per box.)
  bool OncePerStep =
      !Repeated.Call || !Step || enclosingLoop(Repeated.Call, Ctx) == Step;
  if (Scope && OncePerStep && enclosingLoop(Site, Ctx) == Local &&
      !gradientUseIn(Step ? Step : Scope, Flow) &&
      copiesResultOut(Site, What, Facts, Local, Ctx)) {
    ResultCopies Copies(Local, Flow, Ctx);
    Copies.TraverseStmt(const_cast<Stmt *>(Scope));
    if (!Copies.First || Copies.First == Site)
      return;
    SecondCopy = true;
  }

  bool Steers = decidesControlFlow(Site, Local, Ctx);
  std::string Message =
      What.Spelling + " waits for " + Device + " on every iteration" +
      runTimeCondition(Facts) +
      ", so the host blocks until all queued GPU work is "
      "done and the GPU idles until the next step is launched";
  // In a loop of its own within the step (over the boxes of a frame, the
  // elements of a tensor): a wait per element.
  bool PerElement = What.Tensor && enclosingLoop(Site, Ctx) != Local;
  const char *Remedy =
      What.Kind == "synchronize"
          ? "drop it, or synchronize once per epoch or logging interval"
      : What.Spelling.rfind("'clip_grad_norm_(", 0) == 0
          ? "libtorch's clip_grad_norm_ returns the total norm as a host "
            "double: compute the norm as a tensor and scale the gradients by "
            "'(max_norm / (norm + 1e-6)).clamp_max(1)' on the device, or clip "
            "every N steps"
      : What.Kind == "hidden"
          ? "its result depends on the values, so the host waits for them: "
            "keep a fixed-size form on the device (a mask, "
            "'torch::where(cond, a, b)'), or read one host copy of the tensor "
            "per step"
      : SecondCopy
          ? "copy the result to the host once per iteration ('auto host = "
            "output.cpu();') and read every value from that copy"
      : PerElement
          ? "this waits once per element: copy the tensor to the host once, "
            "before the loop ('auto host = t.cpu();'), and read the elements "
            "from that copy, or compute the loop's result on the device"
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

  const Expr *Module = api::firstModuleCall(Step ? Step : Scope);
  Finding.recipe(
      {{"scenario", scenario::SyncInLoop},
       {"sync", What.Kind},
       {"module",
        Module ? recipe::describeModule(api::calledModule(Module), nullptr, Ctx)
               : nlohmann::json(nullptr)},
       {"decides_control_flow", Steers}});
}

} // namespace torchlint
