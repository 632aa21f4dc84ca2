#include "analysis/StepContext.h"

#include "analysis/AutocastCallers.h"
#include "analysis/AutocastFlow.h"
#include "analysis/CudaUse.h"

#include "analysis/DeviceFlow.h"
#include "analysis/GradMode.h"
#include "analysis/GradModeFlow.h"
#include "analysis/UnitIndex.h"
#include "core/FindingBuilder.h"
#include "core/UserCode.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <functional>

using namespace clang;

namespace torchlint {

namespace {
bool isLoop(const Stmt *S) {
  return isa<ForStmt>(S) || isa<CXXForRangeStmt>(S) || isa<WhileStmt>(S) ||
         isa<DoStmt>(S);
}

/// Whether autograd records at Call, in Caller: as the flow says there, or,
/// where Caller leaves it as it found it, as its callers in this unit do;
/// inherited from other units' callers where it has none here.
UnitSummary::OutCall::Grad recordingAt(const Stmt *Call,
                                       const FunctionDecl *Caller,
                                       DeviceFlow &Flow,
                                       GradModeFlow &Recording) {
  using Grad = UnitSummary::OutCall::Grad;
  switch (Recording.before(Call).State) {
  case GradSetting::Disabled:
    return Grad::Off;
  case GradSetting::Enabled:
    return Grad::On;
  case GradSetting::Default:
    break;
  }
  std::optional<llvm::ArrayRef<UnitIndex::CallSite>> Sites =
      Flow.index().callSites(Caller->getCanonicalDecl());
  if (!Sites)
    return Grad::On; // callers not all known: recording, as by default
  if (Sites->empty())
    return Grad::Inherited;
  return gradDisabledInCallers(Caller, Flow, Recording) == true ? Grad::Off
                                                                : Grad::On;
}

/// S is in a catch handler inside Within (a loop; the whole function when
/// null).
bool inHandler(const Stmt *S, const Stmt *Within, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  for (unsigned Steps = 0; !Parents.empty() && Steps < 256; ++Steps) {
    const DynTypedNode &Parent = Parents[0];
    const auto *P = Parent.get<Stmt>();
    if (!P && !Parent.get<VarDecl>())
      return false; // the function, a lambda's class
    if (P && (P == Within || isa<LambdaExpr>(P)))
      return false;
    if (P && isa<CXXCatchStmt>(P))
      return true;
    Parents = Ctx.getParents(Parent);
  }
  return false;
}
} // namespace

/// The step work of a statement tree, outside the loops nested in it and
/// inside them. Lambdas are not walked: they run where they are called.
StepWork StepContext::findWork(const Stmt *S, int Nesting) {
  StepWork Found;
  if (!S || isa<LambdaExpr>(S))
    return Found;
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    bool Trains = api::isBackwardCall(Call) || api::isOptimizerCall(Call);
    Found.add(Trains || api::isModuleCall(Call) ? StepWork::step(Trains)
                                                : calleeWork(Call),
              Nesting > 0);
  }
  int Inner = Nesting + (isLoop(S) ? 1 : 0);
  for (const Stmt *Child : S->children())
    Found.add(findWork(Child, Inner), /*Nested=*/false);
  return Found;
}

StepContext::StepContext(ASTContext &Ctx, const UserCode &Code,
                         DeviceFlow &Flow)
    : Ctx(Ctx), Code(Code), Flow(Flow), Index(Flow.index()) {}

StepWork StepContext::calleeWork(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee ||
      !Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
    return {};
  return workOf(Callee);
}

StepWork StepContext::workOf(const FunctionDecl *Function) {
  if (!Function)
    return {};
  const FunctionDecl *Definition = nullptr;
  if (Function->hasBody(Definition) &&
      Code.isAnalyzed(Definition->getLocation(), Ctx.getSourceManager()))
    return bodyWork(Definition);
  std::optional<std::string> Name = Flow.linkName(Function);
  if (!Name)
    return {};
  AskedWork.insert(*Name);
  if (!Imports)
    return {};
  auto It = Imports->Work.find(*Name);
  return It == Imports->Work.end() ? StepWork() : It->second;
}

StepWork StepContext::bodyWork(const FunctionDecl *Definition) {
  if (auto It = Work.find(Definition); It != Work.end())
    return It->second;
  // A recursion adds nothing the first visit does not find.
  if (!WorkInProgress.insert(Definition).second)
    return {};
  StepWork Found = findWork(Definition->getBody(), 0);
  WorkInProgress.erase(Definition);
  Work[Definition] = Found;
  return Found;
}

LoopRole StepContext::roleOf(const Stmt *Loop) {
  if (auto It = Roles.find(Loop); It != Roles.end())
    return It->second;
  // The loop itself is not nested in itself. One that stops after its
  // first pass runs no step repeatedly.
  StepWork Found = stopsAfterFirstPass(Loop) ? StepWork() : findWork(Loop, -1);
  // Where its nested loops train and it does not, an iteration is a round of
  // training steps (a PPO update: rollout, one bootstrap forward, minibatch
  // steps; an epoch with one evaluation forward): it runs once per many steps.
  bool RoundOfSteps = Found.TrainsInLoops && !Found.Trains;
  LoopRole Role = Found.Runs && !RoundOfSteps ? LoopRole::Step
                  : !Found.none()             ? LoopRole::Epoch
                                              : LoopRole::Other;
  Roles[Loop] = Role;
  return Role;
}

const Stmt *StepContext::stepLoopAround(const Stmt *Loop) {
  for (unsigned Depth = 0; Loop && Depth < 8; ++Depth) {
    switch (roleOf(Loop)) {
    case LoopRole::Step:
      return Loop;
    case LoopRole::Epoch:
      return nullptr;
    case LoopRole::Other:
      Loop = enclosingLoop(Loop, Ctx);
      break;
    }
  }
  return nullptr;
}

StepContext::PerStep StepContext::perStepAt(const Stmt *S) {
  return callRunsPerStep(S, Index.enclosingFunction(S));
}

StepContext::PerStep StepContext::callRunsPerStep(const Stmt *S,
                                                  const FunctionDecl *Caller) {
  PerStep Result;
  for (const Stmt *Loop = enclosingLoop(S, Ctx); Loop;
       Loop = enclosingLoop(Loop, Ctx)) {
    switch (roleOf(Loop)) {
    case LoopRole::Step:
      // A handler runs when a step fails, not on every step.
      if (!inHandler(S, Loop, Ctx)) {
        Result.Reached = true;
        Result.Loop = Loop;
      }
      return Result;
    case LoopRole::Epoch:
      return Result; // once per epoch, not per step
    case LoopRole::Other:
      break;
    }
  }
  if (!Caller || inHandler(S, nullptr, Ctx))
    return Result;
  return perStepThroughCallers(Caller);
}

StepContext::PerStep
StepContext::perStepThroughCallers(const FunctionDecl *Function) {
  if (!Function)
    return {};
  Function = Function->getCanonicalDecl();
  if (auto It = Callers.find(Function); It != Callers.end())
    return It->second;
  if (!CallersInProgress.insert(Function).second)
    return {};
  PerStep Result;
  // The first call that runs on every step decides; a lambda's statements
  // are not in its caller's body, so the call leads to them even where the
  // step loop is in another unit.
  auto FromCalls = [&](llvm::ArrayRef<UnitIndex::CallSite> Sites,
                       bool OfLambda) {
    for (const UnitIndex::CallSite &Site : Sites) {
      if (!Flow.reachable(Site.Call))
        continue;
      Result = callRunsPerStep(Site.Call, Site.Caller);
      if (Result) {
        if (!Result.Call && (Result.Loop || OfLambda))
          Result.Call = Site.Call;
        return;
      }
    }
  };
  if (std::optional<llvm::ArrayRef<UnitIndex::CallSite>> Calls =
          Index.lambdaCalls(Function)) {
    // A lambda kept in a local and only called runs where it is called: a
    // debug dump called under a flag that is off, or from an error handler,
    // is no step's work.
    FromCalls(*Calls, /*OfLambda=*/true);
  } else if (std::optional<UnitIndex::CallSite> Lambda =
                 Index.lambdaOrigin(Function)) {
    // Otherwise a lambda runs where it is made, as far as this unit tells.
    Result = callRunsPerStep(Lambda->Call, Lambda->Caller);
    if (Result && !Result.Call)
      Result.Call = Lambda->Call;
  } else {
    FromCalls(Index.seenCalls(Function), /*OfLambda=*/false);
    if (!Result)
      if (std::optional<std::string> Name = Flow.linkName(Function)) {
        AskedPerStep.insert(*Name);
        Result.Reached = Imports && Imports->CalledPerStep.count(*Name);
      }
  }
  CallersInProgress.erase(Function);
  Callers[Function] = Result;
  return Result;
}

std::optional<bool>
StepContext::gradOffInCallersElsewhere(const FunctionDecl *Function) {
  std::optional<std::string> Name = Flow.linkName(Function);
  if (!Name)
    return std::nullopt;
  AskedGrad.insert(*Name);
  if (!Imports)
    return std::nullopt;
  return Imports->GradOffInCallers.count(*Name) != 0;
}

std::optional<Span>
StepContext::autocastOnInCallersElsewhere(const FunctionDecl *Function) {
  std::optional<std::string> Name = Flow.linkName(Function);
  if (!Name)
    return std::nullopt;
  AskedAutocast.insert(*Name);
  if (!Imports)
    return std::nullopt;
  auto It = Imports->AutocastOnInCallers.find(*Name);
  if (It == Imports->AutocastOnInCallers.end())
    return std::nullopt;
  return It->second;
}

bool StepContext::unitCalls(
    llvm::function_ref<bool(const CallExpr *)> Wanted) const {
  std::function<bool(const Stmt *)> Finds = [&](const Stmt *S) {
    if (!S)
      return false;
    if (const auto *Call = dyn_cast<CallExpr>(S); Call && Wanted(Call))
      return true;
    return llvm::any_of(S->children(), Finds);
  };
  return llvm::any_of(Index.definitions(), [&](const FunctionDecl *FD) {
    return Finds(FD->getBody());
  });
}

bool StepContext::unitTrains() {
  if (!Trains)
    Trains = unitCalls([](const CallExpr *Call) {
      return api::isBackwardCall(Call) || api::isOptimizerCall(Call);
    });
  return *Trains;
}

bool StepContext::unitDecidesCudnnBenchmark() {
  if (!DecidesCudnnBenchmark)
    DecidesCudnnBenchmark = unitCalls([](const CallExpr *Call) {
      const auto *Method =
          dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
      return Method && Method->getIdentifier() &&
             Method->getName() == "setBenchmarkCuDNN";
    });
  return *DecidesCudnnBenchmark;
}

std::optional<bool> StepContext::programDecidesCudnnBenchmark() {
  if (unitDecidesCudnnBenchmark())
    return true;
  AskedCudnnBenchmark = true;
  if (!Imports || !Imports->OthersDecideCudnnBenchmark)
    return std::nullopt;
  return *Imports->OthersDecideCudnnBenchmark;
}

std::optional<bool> StepContext::programTrains() {
  if (unitTrains())
    return true;
  AskedTraining = true;
  if (!Imports || !Imports->OthersTrain)
    return std::nullopt;
  return *Imports->OthersTrain;
}

const Stmt *StepContext::unitCudaUse() {
  if (!CudaUse)
    CudaUse = firstCudaUse(Ctx, Code);
  return *CudaUse;
}

std::optional<bool> StepContext::programUsesCuda() {
  if (unitCudaUse())
    return true;
  AskedCuda = true;
  if (!Imports || !Imports->OthersUseCuda)
    return std::nullopt;
  return *Imports->OthersUseCuda;
}

void StepContext::summarize(UnitSummary &Into, GradModeFlow &Recording,
                            AutocastFlow &Autocast) {
  const SourceManager &SM = Ctx.getSourceManager();
  for (const FunctionDecl *FD : Index.definitions()) {
    if (!SM.isInMainFile(FD->getLocation()))
      continue;
    // Asked of every function, not only of those a rule asked about: a rule
    // asks only once it knows the device, which may arrive in the same later
    // round as the answer is needed.
    perStepThroughCallers(FD);
    StepWork What = workOf(FD);
    if (What.none())
      continue;
    if (std::optional<std::string> Name = Flow.linkName(FD)) {
      Into.Work[*Name] = What;
      Into.Defines.insert(*Name);
    }
  }
  // The calls into other units: those made on every step, and, from each
  // function of this unit, the edges along which step facts travel on.
  for (const FunctionDecl *Callee : Index.callees()) {
    const FunctionDecl *Definition = nullptr;
    if ((Callee->hasBody(Definition) &&
         Code.isAnalyzed(Definition->getLocation(), SM)) ||
        !Code.isAnalyzed(Callee->getLocation(), SM))
      continue;
    std::optional<std::string> Name = Flow.linkName(Callee);
    if (!Name)
      continue;
    bool PerStep = false;
    for (const UnitIndex::CallSite &Site : Index.seenCalls(Callee)) {
      if (!Flow.reachable(Site.Call))
        continue;
      PerStep = PerStep || callRunsPerStep(Site.Call, Site.Caller);
      const FunctionDecl *Caller = Site.Caller;
      if (Caller && !SM.isInMainFile(Caller->getLocation()))
        continue;
      if (std::optional<std::string> From =
              Caller ? Flow.linkName(Caller) : std::nullopt) {
        std::optional<llvm::ArrayRef<UnitIndex::CallSite>> CallerSites =
            Flow.index().callSites(Caller->getCanonicalDecl());
        bool AutocastInherited = CallerSites && CallerSites->empty() &&
                                 !Flow.index().lambdaOrigin(Caller) &&
                                 autocastUndecidedAt(Site.Call, Autocast);
        Into.CallsOut[*From].insert(
            {*Name, enclosingLoop(Site.Call, Ctx) != nullptr,
             recordingAt(Site.Call, Caller, Flow, Recording),
             AutocastInherited});
        Into.Defines.insert(*From);
      }
      if (Into.CalledUnderAutocast.count(*Name))
        continue;
      // Only this unit's switches: callers elsewhere reach the callee
      // through the inherited edges, without a question for every call.
      if (AutocastOrigin On = autocastOnAt(Site.Call, Caller, Autocast, Flow,
                                           /*Steps=*/nullptr))
        if (std::optional<Span> Where =
                resolveSpan(Ctx, Code, On.Here->getSourceRange()))
          Into.CalledUnderAutocast[*Name] = *Where;
    }
    if (PerStep)
      Into.CallsPerStep.insert(*Name);
  }
  Into.Trains = unitTrains();
  Into.AskedWork.insert(AskedWork.begin(), AskedWork.end());
  Into.AskedPerStep.insert(AskedPerStep.begin(), AskedPerStep.end());
  Into.AskedGrad.insert(AskedGrad.begin(), AskedGrad.end());
  Into.AskedAutocast.insert(AskedAutocast.begin(), AskedAutocast.end());
  Into.AskedTraining = AskedTraining;
  Into.UsesCuda = unitCudaUse() != nullptr;
  Into.AskedCuda = AskedCuda;
  Into.DecidesCudnnBenchmark = unitDecidesCudnnBenchmark();
  Into.AskedCudnnBenchmark = AskedCudnnBenchmark;
}

} // namespace torchlint
