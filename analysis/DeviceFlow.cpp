//===--- DeviceFlow.cpp - Where values live: facts, storage, runs
//-----------===//
//
// The facts a value may have and how they merge, where each expression is
// stored, and running one function's flow. Transfer, evaluation, the values
// that enter a function and the summaries are in the DeviceFlow*.cpp beside it.
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

namespace {

/// Past this many possibilities a value is simply "unknown".
constexpr size_t MaxFacts = 8;
/// Bounds on the interprocedural work, so that no input makes it explode.
constexpr size_t MaxAnalyses = 4000;

std::pair<unsigned, unsigned> rawRange(SourceRange R) {
  return {R.getBegin().getRawEncoding(), R.getEnd().getRawEncoding()};
}
std::pair<unsigned, unsigned> rawRange(const Stmt *S) {
  return S ? rawRange(S->getSourceRange()) : std::make_pair(0u, 0u);
}
std::pair<unsigned, unsigned> rawRange(const Decl *D) {
  return D ? rawRange(D->getSourceRange()) : std::make_pair(0u, 0u);
}

bool isUnknownSet(const FactSet &Facts) {
  return Facts.size() == 1 && !Facts.front().isKnown() &&
         Facts.front().How == Provenance::Unknown && !Facts.front().Origin;
}

} // namespace

namespace device_flow {

FactSet unknown() { return FactSet{DeviceFact()}; }

void sortFacts(FactSet &Facts) {
  std::sort(Facts.begin(), Facts.end());
  Facts.erase(std::unique(Facts.begin(), Facts.end()), Facts.end());
}

/// Adds From to Into; true when Into changed. "Unknown" absorbs everything.
bool mergeFacts(FactSet &Into, const FactSet &From) {
  if (isUnknownSet(Into))
    return false;
  bool Changed = false;
  for (const DeviceFact &F : From) {
    if (std::find(Into.begin(), Into.end(), F) != Into.end())
      continue;
    Into.push_back(F);
    Changed = true;
  }
  if (!Changed)
    return false;
  if (Into.size() > MaxFacts)
    Into = unknown();
  sortFacts(Into);
  return true;
}

/// Re-labels known facts: the value now got its device at Origin.
FactSet relabel(FactSet Facts, Provenance How, const Stmt *Origin,
                const Expr *DeviceExpr) {
  for (DeviceFact &F : Facts) {
    if (!F.isKnown())
      continue;
    F.How = How;
    F.Origin = Origin;
    F.OriginDecl = nullptr;
    F.Pinned = false;
    if (DeviceExpr)
      F.DeviceExpr = DeviceExpr;
  }
  sortFacts(Facts);
  return Facts;
}

/// The same devices, in memory that is not page-locked (or, with Pinned,
/// that is): the result of an operation that allocates, or of pin_memory().
FactSet withPinned(FactSet Facts, bool Pinned) {
  for (DeviceFact &F : Facts)
    if (F.isKnown())
      F.Pinned = Pinned && F.Kind == DeviceKind::CPU;
  sortFacts(Facts);
  return Facts;
}

/// A device parameter whose callers choose the device: with a GPU, a GPU on
/// the runs they make it one.
DeviceFact chosenByCaller(const ParmVarDecl *Param) {
  DeviceFact Chosen;
  Chosen.Kind = DeviceKind::CUDA;
  Chosen.How = Provenance::ChosenByCaller;
  Chosen.OriginDecl = Param;
  Chosen.Symbol = Param;
  Chosen.RunTimeChoice = true;
  return Chosen;
}

FactSet single(DeviceKind Kind, Provenance How, const Stmt *Origin,
               const Expr *Literal) {
  DeviceFact F;
  F.Kind = Kind;
  F.How = How;
  F.Origin = Origin;
  F.Literal = Literal;
  return FactSet{F};
}

const FunctionDecl *definitionOf(const FunctionDecl *FD) {
  const FunctionDecl *Definition = nullptr;
  if (FD && FD->hasBody(Definition))
    return Definition;
  return nullptr;
}

llvm::SmallVector<const Expr *, 4> parameterArgs(const CallExpr *Call,
                                                 const FunctionDecl *Callee) {
  llvm::SmallVector<const Expr *, 4> Args(Call->arguments());
  if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) &&
      !Args.empty())
    Args.erase(Args.begin());
  return Args;
}

/// A module whose construction puts its parameters on the CPU: any but a
/// TorchScript module, which is empty until a module is loaded into it.
bool isStandardContainerOfTensors(QualType T) {
  const CXXRecordDecl *RD = api::bareType(T)->getAsCXXRecordDecl();
  return RD && RD->isInStdNamespace() && api::isTensorCarrier(T) &&
         !api::isTensorTuple(T);
}

bool constructedOnCpu(QualType T) {
  const CXXRecordDecl *Class = api::moduleClassOf(T);
  return Class && !api::isScriptModuleClass(Class);
}

bool allDefaultOptions(const FactSet &Facts) {
  return !Facts.empty() &&
         std::all_of(Facts.begin(), Facts.end(), [](const DeviceFact &F) {
           return F.How == Provenance::DefaultOptions;
         });
}

bool allUnknown(const FactSet &Facts) {
  return std::none_of(Facts.begin(), Facts.end(),
                      [](const DeviceFact &F) { return F.isKnown(); });
}

bool isStdFunction(const FunctionDecl *FD, llvm::StringRef Name) {
  return FD && FD->getDeclName().isIdentifier() && FD->getName() == Name &&
         FD->isInStdNamespace();
}

} // namespace device_flow

SourceRange DeviceFact::originRange() const {
  if (Origin)
    return Origin->getSourceRange();
  if (OriginDecl)
    return OriginDecl->getSourceRange();
  return SourceRange();
}

static auto orderKey(const DeviceFact &F) {
  return std::make_tuple(
      static_cast<int>(F.Kind), F.Index, static_cast<int>(F.How), F.Pinned,
      rawRange(F.Origin), rawRange(F.OriginDecl), rawRange(F.DeviceExpr),
      rawRange(F.Literal), rawRange(F.Symbol), F.RunTimeChoice,
      F.Remote ? F.Remote->File : std::string(),
      F.Remote ? F.Remote->Begin.Offset : 0u);
}

bool DeviceFact::operator==(const DeviceFact &O) const {
  return Kind == O.Kind && Index == O.Index && How == O.How &&
         Symbol == O.Symbol && DeviceExpr == O.DeviceExpr &&
         Literal == O.Literal && Origin == O.Origin &&
         OriginDecl == O.OriginDecl && Pinned == O.Pinned &&
         RunTimeChoice == O.RunTimeChoice && Remote == O.Remote;
}

bool DeviceFact::operator<(const DeviceFact &O) const {
  // Source positions, not pointers, so that sets (and the notes chosen from
  // them) are ordered the same in every run.
  return orderKey(*this) < orderKey(O);
}

bool mayDiffer(const DeviceFact &A, const DeviceFact &B) {
  if (!A.isKnown() || !B.isKnown() || A.RunTimeChoice || B.RunTimeChoice)
    return false;
  if (A.Symbol && A.Symbol == B.Symbol)
    return false;
  if (A.Kind != B.Kind)
    return true;
  return A.Index >= 0 && B.Index >= 0 && A.Index != B.Index;
}

//===----------------------------------------------------------------------===//
// The per-function analysis
//===----------------------------------------------------------------------===//

DeviceFlow::DeviceFlow(ASTContext &Ctx, const UserCode &Code, UnitIndex &Index,
                       Machine On)
    : Ctx(Ctx), Code(Code), Index(Index), On(On), Cfgs(Ctx) {}

DeviceFlow::~DeviceFlow() = default;

bool DeviceFlow::isTracked(QualType T) const {
  return api::carriesTensors(T) || api::moduleClassOf(T) ||
         api::isDeviceLike(T) || api::isDevicePointer(T) ||
         api::isDataLoaderValue(T) || api::isTensorCarrier(T);
}

const Decl *DeviceFlow::canonical(const Analysis &A, const Decl *D) const {
  for (unsigned Steps = 0; D && Steps < 8; ++Steps) {
    auto It = A.Aliases.find(D);
    if (It == A.Aliases.end())
      break;
    D = It->second;
  }
  return D;
}

DeviceFlow::Storage DeviceFlow::storageOf(Analysis &A, const Expr *E,
                                          bool Create) {
  E = api::ignoreWrappers(E);
  if (!E)
    return nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return isa<VarDecl>(Ref->getDecl()) ? canonical(A, Ref->getDecl())
                                        : nullptr;
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    if (!Field)
      return nullptr;
    const Expr *Base = Member->getBase()->IgnoreParenImpCasts();
    if (isa<CXXThisExpr>(Base))
      return Field;
    // batch.data: a member of a local object.
    const auto *BaseRef = dyn_cast<DeclRefExpr>(api::ignoreWrappers(Base));
    const Decl *Owner = BaseRef && isa<VarDecl>(BaseRef->getDecl())
                            ? canonical(A, BaseRef->getDecl())
                            : nullptr;
    if (!Owner)
      return nullptr;
    auto Key = std::make_pair(Owner, static_cast<const Decl *>(Field));
    auto It = MemberKeys.find(Key);
    if (It != MemberKeys.end())
      return It->second.get();
    if (!Create)
      return nullptr;
    auto Made = std::make_unique<char>();
    Storage Result = Made.get();
    MemberKeys.emplace(Key, std::move(Made));
    MemberKeyBase[Result] = Owner;
    return Result;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if ((Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star) &&
        Op->getNumArgs() >= 1)
      return storageOf(A, Op->getArg(0), Create);
    return nullptr;
  }
  if (const auto *Unary = dyn_cast<UnaryOperator>(E))
    if (Unary->getOpcode() == UO_Deref)
      return storageOf(A, Unary->getSubExpr(), Create);
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Call->getMethodDecl();
    if (MD && MD->getDeclName().isIdentifier() &&
        (MD->getName() == "get" || MD->getName() == "ptr") &&
        Call->getNumArgs() == 0)
      return storageOf(A, Call->getImplicitObjectArgument(), Create);
  }
  return nullptr;
}

void DeviceFlow::assign(State &S, Storage Target, FactSet Facts) {
  if (!Target)
    return;
  // A variable assigned as a whole forgets what its members held.
  for (auto It = S.begin(); It != S.end();) {
    auto Current = It++;
    auto Base = MemberKeyBase.find(Current->first);
    if (Base != MemberKeyBase.end() && Base->second == Target)
      S.erase(Current);
  }
  S[Target] = std::move(Facts);
}

//===----------------------------------------------------------------------===//
// Running the analysis
//===----------------------------------------------------------------------===//

DeviceFlow::Analysis *DeviceFlow::analyze(const FunctionDecl *FD,
                                          const Bindings &Params) {
  FD = definitionOf(FD);
  if (!FD || Depth > MaxDepth)
    return nullptr;
  const FunctionCfg *Cfg = Cfgs.get(FD);
  if (!Cfg)
    return nullptr;
  std::vector<std::unique_ptr<Analysis>> &Existing = Analyses[FD];
  for (const std::unique_ptr<Analysis> &A : Existing)
    if (A->Params == Params && (!A->Provisional || !FieldsInProgress.empty()))
      return A->Done && !A->Failed ? A.get() : nullptr; // recursion, failure
  size_t Total = 0;
  for (const auto &Entry : Analyses)
    Total += Entry.second.size();
  if (Total > MaxAnalyses)
    return nullptr;

  Existing.push_back(std::make_unique<Analysis>());
  Analysis *A = Existing.back().get();
  A->Provisional = !FieldsInProgress.empty();
  A->Function = FD;
  A->Cfg = Cfg;
  A->Params = Params;
  ++Depth;
  run(*A);
  --Depth;
  A->Done = true;
  return A->Failed ? nullptr : A;
}

DeviceFlow::Analysis *DeviceFlow::standalone(const FunctionDecl *FD) {
  FD = definitionOf(FD);
  if (!FD)
    return nullptr;
  auto It = Standalone.find(FD);
  if (It != Standalone.end())
    return It->second;
  if (!StandaloneInProgress.insert(FD).second || Depth > MaxDepth)
    return nullptr;
  Bindings Initial;
  for (const ParmVarDecl *Param : FD->parameters())
    Initial.push_back(isTracked(Param->getType()) ? paramFacts(Param)
                                                  : FactSet());
  Analysis *A = analyze(FD, Initial);
  StandaloneInProgress.erase(FD);
  // A result cut short by recursion or the budget is not remembered: a later
  // question, from elsewhere, may get the whole answer.
  if (A && !A->Failed && !A->Provisional)
    Standalone[FD] = A;
  return A && !A->Failed ? A : nullptr;
}

DeviceFlow::State DeviceFlow::Lattice::entry() const {
  State Initial;
  for (unsigned I = 0; I < A->Function->getNumParams(); ++I)
    if (I < A->Params.size() &&
        Flow->isTracked(A->Function->getParamDecl(I)->getType()))
      Initial[A->Function->getParamDecl(I)] = A->Params[I];
  return Initial;
}

bool DeviceFlow::Lattice::edgePossible(const CFGBlock &B, unsigned Succ) const {
  // An edge taken only on the other kind of machine is not followed.
  return A->Cfg->edgePossible(B, Succ, Flow->On == Machine::WithGpu);
}

void DeviceFlow::run(Analysis &A) {
  A.Solved = std::make_unique<ForwardFlow<Lattice>>(*A.Cfg, Lattice{this, &A},
                                                    Cfgs.flowBudget());
  if (!A.Solved->converged()) {
    A.Failed = true;
    Cfgs.overran(A.Function, Lattice::Name);
    return;
  }
  if (std::optional<State> Exit = A.Solved->atExit()) {
    A.Exit = std::move(*Exit);
    A.ExitReached = true;
  }
}

bool DeviceFlow::mergeState(State &Into, const State &From) {
  bool Changed = false;
  for (const auto &Entry : From) {
    auto [It, Inserted] = Into.try_emplace(Entry.first, Entry.second);
    if (Inserted)
      Changed = true;
    else
      Changed |= mergeFacts(It->second, Entry.second);
  }
  return Changed;
}

std::optional<DeviceFlow::State> DeviceFlow::stateBefore(Analysis &A,
                                                         const Stmt *S) {
  std::optional<FunctionCfg::Place> Place = A.Cfg->placeOf(S, Ctx);
  if (!Place || !A.Solved)
    return std::nullopt;
  // While a member's value is being worked out, a transfer may see it as
  // unknown: such states are not kept for later questions.
  return A.Solved->before(*Place, /*Keep=*/FieldsInProgress.empty());
}

} // namespace torchlint
