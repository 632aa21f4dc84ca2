//===--- DeviceFlowSummaries.cpp - Queries and what the units tell each other
//===//
//
// The questions rules ask (where a value is, whether code is reached), and
// the cross-unit summaries: facts imported from other units' callers and
// callees, and this unit's facts exported for them.
//
//===----------------------------------------------------------------------===//

#include "analysis/DeviceFlow.h"
#include "analysis/DeviceFlowInternal.h"

#include "analysis/ForwardFlow.h"

#include "core/FindingBuilder.h"
#include "core/UserCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallSet.h"

#include <algorithm>
#include <functional>
#include <tuple>

using namespace clang;
using torchlint::api::DeviceKind;

namespace torchlint {

using namespace device_flow;

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

FactSet DeviceFlow::devicesOf(const Expr *E) {
  const FunctionDecl *FD = E ? Index.enclosingFunction(E) : nullptr;
  if (!FD || !Code.isAnalyzed(FD->getLocation(), Ctx.getSourceManager()) ||
      !functionReachable(FD))
    return FactSet();
  Analysis *A = standalone(FD);
  if (!A)
    return unknown();
  std::optional<State> At = stateBefore(*A, E);
  if (!At)
    return FactSet();
  return eval(*A, *At, E);
}

bool DeviceFlow::functionReachable(const FunctionDecl *FD) {
  FD = definitionOf(FD);
  if (!FD)
    return true;
  auto [It, Inserted] = Reachable.try_emplace(FD, true);
  if (!Inserted)
    return It->second; // true while in progress: recursion is no evidence
  bool Result = true;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(FD);
      Method && Method->getParent()->isLambda()) {
    if (std::optional<CallSite> Origin = Index.lambdaOrigin(FD))
      Result = !Origin->Caller || reachable(Origin->Call);
  } else if (std::optional<llvm::ArrayRef<CallSite>> Sites =
                 Index.callSites(FD);
             Sites && !Sites->empty()) {
    // Called from somewhere known: reachable when one of its calls is.
    Result = false;
    for (const CallSite &Site : *Sites)
      if (!Site.Caller || reachable(Site.Call)) {
        Result = true;
        break;
      }
  }
  Reachable[FD] = Result;
  return Result;
}

bool DeviceFlow::reachable(const Stmt *S) {
  const FunctionDecl *FD = S ? Index.enclosingFunction(S) : nullptr;
  if (!FD)
    return true; // not in a function: a global initialiser always runs
  if (!functionReachable(FD))
    return false;
  Analysis *A = standalone(FD);
  if (!A)
    return true;
  std::optional<FunctionCfg::Place> Place = A->Cfg->placeOf(S, Ctx);
  if (!Place)
    return true;
  return A->Solved->reaches(Place->Block);
}

//===----------------------------------------------------------------------===//
// Summaries: what the other units of the program tell, and what this one
// tells them
//===----------------------------------------------------------------------===//

namespace {
/// The parameters of a function being summarized carry these devices, one
/// per parameter: what reaches a return from parameter I is on "GPU
/// ParameterMarker + I".
constexpr int ParameterMarker = 1 << 20;

bool isParameterMarker(const DeviceFact &F) {
  return F.Kind == DeviceKind::CUDA && F.Index >= ParameterMarker;
}
} // namespace

bool DeviceFlow::isFilledThrough(const ParmVarDecl *Param) {
  QualType T = Param->getType();
  if (!T->isReferenceType() || T.getNonReferenceType().isConstQualified())
    return false;
  return api::isTensor(T) || api::isTensorCarrier(T) ||
         api::isTensorSequence(T) || api::isTensorTuple(T);
}

std::optional<std::string> DeviceFlow::linkName(const FunctionDecl *FD) {
  FD = FD->getCanonicalDecl();
  if (auto It = LinkNames.find(FD); It != LinkNames.end())
    return It->second;
  std::optional<std::string> Name;
  const auto *Method = dyn_cast<CXXMethodDecl>(FD);
  if (FD->isExternallyVisible() && !FD->isDependentContext() &&
      !isa<CXXDestructorDecl>(FD) &&
      !(Method && Method->getParent()->isLambda())) {
    if (!Mangler)
      Mangler.reset(Ctx.createMangleContext());
    if (Mangler->shouldMangleDeclName(FD)) {
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
        Mangler->mangleName(GlobalDecl(Ctor, Ctor_Complete), OS);
      else
        Mangler->mangleName(GlobalDecl(FD), OS);
      Name = OS.str();
    } else if (FD->getDeclName().isIdentifier()) {
      Name = FD->getName().str(); // extern "C"
    }
  }
  LinkNames[FD] = Name;
  return Name;
}

DeviceFact DeviceFlow::fromRemote(const RemoteFact &R) {
  DeviceFact F;
  F.Kind = R.Kind;
  F.Index = R.Index;
  F.How = R.How;
  F.Pinned = R.Pinned;
  F.RunTimeChoice = R.RunTimeChoice;
  if (R.Where) {
    // One Span per place, so that equal facts stay equal.
    auto Key = std::make_tuple(R.Where->File, R.Where->Begin.Offset,
                               R.Where->End.Offset);
    auto [It, Inserted] = RemoteSpans.try_emplace(Key, nullptr);
    if (Inserted) {
      RemoteOrigins.push_back(*R.Where);
      It->second = &RemoteOrigins.back();
    }
    F.Remote = It->second;
  }
  return F;
}

RemoteFact DeviceFlow::toRemote(const DeviceFact &F) {
  RemoteFact R;
  R.Kind = F.Kind;
  R.Index = F.Index;
  R.How = F.How;
  R.Pinned = F.Pinned;
  R.RunTimeChoice = F.RunTimeChoice;
  // A device is chosen where it is written; a tensor or a module is put on
  // it where it is moved or made.
  bool Chosen = F.How == Provenance::DeviceLiteral ||
                F.How == Provenance::Unknown ||
                F.How == Provenance::ChosenByCaller ||
                F.How == Provenance::NamedAtRunTime;
  if (F.Remote)
    R.Where = *F.Remote;
  else if (F.isKnown())
    R.Where = resolveSpan(Ctx, Code,
                          Chosen && F.Literal ? F.Literal->getSourceRange()
                                              : F.originRange());
  return R;
}

std::optional<FactSet>
DeviceFlow::importedCallerFacts(const ParmVarDecl *Param) {
  const auto *FD = dyn_cast<FunctionDecl>(Param->getDeclContext());
  if (!FD || !isTracked(Param->getType()))
    return std::nullopt;
  std::optional<std::string> Name = linkName(FD);
  if (!Name)
    return std::nullopt;
  AskedCallers.insert(*Name);
  if (!Imports)
    return std::nullopt;
  auto It = Imports->Callers.find(*Name);
  unsigned Position = Param->getFunctionScopeIndex();
  if (It == Imports->Callers.end() || Position >= It->second.size() ||
      It->second[Position].empty())
    return std::nullopt;
  QualType T = api::bareType(Param->getType());
  bool IsDevice = api::isDevice(T) || api::isDeviceType(T);
  FactSet Result;
  llvm::SmallSet<int, 2> Kinds;
  for (const RemoteFact &R : It->second[Position]) {
    DeviceFact F = fromRemote(R);
    // A device a caller got from somewhere unknown is still its choice: with
    // a GPU, a GPU on some run.
    if (!F.isKnown() && IsDevice && On == Machine::WithGpu)
      F = chosenByCaller(Param);
    if (F.isKnown())
      Kinds.insert(static_cast<int>(F.Kind));
    F.Symbol = Param;
    F.OriginDecl = Param;
    Result.push_back(F);
  }
  // Callers that disagree make the device a choice made at run time: no
  // error holds on every run.
  if (Kinds.size() > 1)
    for (DeviceFact &F : Result)
      F.RunTimeChoice = F.isKnown() && F.Kind != DeviceKind::CPU;
  sortFacts(Result);
  return Result;
}

const ReturnSummary *DeviceFlow::importedSummaryOf(const FunctionDecl *Callee) {
  if (!Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
    return nullptr;
  std::optional<std::string> Name = linkName(Callee);
  if (!Name)
    return nullptr;
  AskedReturns.insert(*Name);
  if (!Imports)
    return nullptr;
  auto It = Imports->Returns.find(*Name);
  return It == Imports->Returns.end() ? nullptr : &It->second;
}

FactSet DeviceFlow::fromRemote(const RemoteFacts &Remote, const Expr *At) {
  FactSet Result;
  for (const RemoteFact &R : Remote) {
    DeviceFact F = fromRemote(R);
    if (F.isKnown())
      F.Origin = At;
    Result.push_back(F);
  }
  sortFacts(Result);
  return Result;
}

std::optional<FactSet>
DeviceFlow::importedReturn(Analysis &A, const State &S, const CallExpr *Call,
                           const FunctionDecl *Callee,
                           llvm::ArrayRef<const Expr *> Args) {
  if (!isTracked(Call->getType()))
    return std::nullopt;
  const ReturnSummary *Returned = importedSummaryOf(Callee);
  if (!Returned)
    return std::nullopt;
  FactSet Result;
  for (unsigned Position : Returned->FromParameters)
    mergeFacts(Result, Position < Args.size()
                           ? withPinned(eval(A, S, Args[Position]), false)
                           : unknown());
  mergeFacts(Result, fromRemote(Returned->Facts, Call));
  return Result.empty() ? unknown() : Result;
}

std::optional<FactSet> DeviceFlow::importedFill(Analysis &A, const State &S,
                                                const FunctionDecl *Callee,
                                                unsigned Position,
                                                const Expr *Argument) {
  const ReturnSummary *Returned = importedSummaryOf(Callee);
  if (!Returned)
    return std::nullopt;
  auto Filled = Returned->Fills.find(Position);
  if (Filled == Returned->Fills.end())
    return std::nullopt;
  FactSet Result = fromRemote(Filled->second.Facts, Argument);
  if (Filled->second.KeepsGiven)
    mergeFacts(Result, eval(A, S, Argument));
  return Result;
}

UnitSummary DeviceFlow::summarize() {
  UnitSummary Summary;
  const SourceManager &SM = Ctx.getSourceManager();
  // What this unit's functions return, for the units that call them.
  for (const FunctionDecl *FD : Index.definitions()) {
    if (!SM.isInMainFile(FD->getLocation()))
      continue;
    bool TakesTracked =
        llvm::any_of(FD->parameters(), [&](const ParmVarDecl *P) {
          return isTracked(P->getType());
        });
    if (!TakesTracked && !isTracked(FD->getReturnType()))
      continue;
    std::optional<std::string> Name = linkName(FD);
    if (!Name)
      continue;
    Summary.Defines.insert(*Name);
    bool Fills = llvm::any_of(FD->parameters(), [&](const ParmVarDecl *P) {
      return isFilledThrough(P);
    });
    if (!isTracked(FD->getReturnType()) && !Fills)
      continue;
    Bindings Markers;
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      const ParmVarDecl *Param = FD->getParamDecl(I);
      if (!isTracked(Param->getType())) {
        Markers.push_back(FactSet());
        continue;
      }
      DeviceFact Marker;
      Marker.Kind = DeviceKind::CUDA;
      Marker.Index = ParameterMarker + static_cast<int>(I);
      Marker.Symbol = Param;
      Markers.push_back(FactSet{Marker});
    }
    Analysis *C = analyze(FD, Markers);
    if (!C)
      continue;
    ReturnSummary Returned;
    if (isTracked(FD->getReturnType()))
      for (const DeviceFact &F : returnedFacts(*C)) {
        if (isParameterMarker(F))
          Returned.FromParameters.insert(
              static_cast<unsigned>(F.Index - ParameterMarker));
        else
          Returned.Facts.push_back(toRemote(F));
      }
    mergeRemoteFacts(Returned.Facts, {});
    // An argument the function fills: what it holds when the function
    // returns, told apart from what the caller passed (its marker).
    for (unsigned I = 0; I < FD->getNumParams() && C->ExitReached; ++I) {
      auto It = C->Exit.find(FD->getParamDecl(I));
      if (!isFilledThrough(FD->getParamDecl(I)) || It == C->Exit.end())
        continue;
      ReturnSummary::Fill Filled;
      for (const DeviceFact &F : It->second) {
        if (isParameterMarker(F))
          Filled.KeepsGiven |= F.Index == ParameterMarker + static_cast<int>(I);
        else if (F.isKnown())
          Filled.Facts.push_back(toRemote(F));
        else
          Filled.Facts.push_back(RemoteFact());
      }
      mergeRemoteFacts(Filled.Facts, {});
      if (llvm::any_of(Filled.Facts, [](const RemoteFact &R) {
            return R.Kind != DeviceKind::Unknown;
          }))
        Returned.Fills[I] = std::move(Filled);
    }
    bool Informative = !Returned.FromParameters.empty() ||
                       !Returned.Fills.empty() ||
                       llvm::any_of(Returned.Facts, [](const RemoteFact &R) {
                         return R.Kind != DeviceKind::Unknown;
                       });
    if (Informative)
      Summary.Returns[*Name] = std::move(Returned);
  }
  // What this unit passes to the functions it calls and does not define.
  for (const FunctionDecl *Callee : Index.callees()) {
    if (definitionOf(Callee) || !Code.isAnalyzed(Callee->getLocation(), SM) ||
        llvm::none_of(Callee->parameters(), [&](const ParmVarDecl *P) {
          return isTracked(P->getType());
        }))
      continue;
    std::optional<std::string> Name = linkName(Callee);
    std::optional<llvm::ArrayRef<CallSite>> Sites = Index.callSites(Callee);
    // What this unit passes to a virtual method, whichever override runs.
    if (const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
        !Sites && Method && Method->isVirtual())
      Sites = Index.seenCalls(Callee);
    if (!Name || !Sites)
      continue;
    std::vector<RemoteFacts> Passed(Callee->getNumParams());
    for (const CallSite &Site : *Sites) {
      Analysis *Caller = Site.Caller ? standalone(Site.Caller) : nullptr;
      std::optional<State> At;
      if (Caller)
        At = stateBefore(*Caller, Site.Call);
      else if (!Site.Caller)
        continue;
      if (Caller && !At)
        continue; // the call does not happen on this machine
      llvm::SmallVector<const Expr *, 4> Args;
      if (const auto *Call = dyn_cast<CallExpr>(Site.Call))
        Args = parameterArgs(Call, Callee);
      else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Site.Call))
        Args.assign(Construct->arg_begin(), Construct->arg_end());
      for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
        const ParmVarDecl *Param = Callee->getParamDecl(I);
        if (!isTracked(Param->getType()))
          continue;
        FactSet Facts;
        if (!Caller)
          Facts = unknown();
        else if (I < Args.size() && !isa<CXXDefaultArgExpr>(Args[I]))
          Facts = eval(*Caller, *At, Args[I]);
        else if (I < Args.size())
          Facts = eval(*Caller, State(), Args[I]);
        else
          Facts = unknown();
        RemoteFacts Remote;
        for (const DeviceFact &F : Facts)
          Remote.push_back(toRemote(F));
        mergeRemoteFacts(Passed[I], Remote);
      }
    }
    Summary.Passes[*Name] = std::move(Passed);
  }
  Summary.AskedCallers = AskedCallers;
  Summary.AskedReturns = AskedReturns;
  return Summary;
}

} // namespace torchlint
