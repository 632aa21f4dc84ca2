#include "analysis/DeviceFlow.h"

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

namespace {

/// Past this many possibilities a value is simply "unknown".
constexpr size_t MaxFacts = 8;
/// Bounds on the interprocedural work, so that no input makes it explode.
constexpr unsigned MaxDepth = 12;
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

FactSet unknown() { return FactSet{DeviceFact()}; }

void sortFacts(FactSet &Facts) {
  std::sort(Facts.begin(), Facts.end());
  Facts.erase(std::unique(Facts.begin(), Facts.end()), Facts.end());
}

bool isUnknownSet(const FactSet &Facts) {
  return Facts.size() == 1 && !Facts.front().isKnown() &&
         Facts.front().How == Provenance::Unknown && !Facts.front().Origin;
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
                const Expr *DeviceExpr = nullptr) {
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

/// Collects where the tensor operands of one operation are, and says where
/// its result is. An operation's tensors must share a device (a 0-dim CPU
/// tensor aside), so an operand whose devices are all known, one of them a
/// GPU (`x.to(device)`), puts the result where it is, whatever the unknown
/// operands hold; without one, the result may be wherever any operand is. An
/// operand known only on the CPU decides nothing: it may be a 0-dim tensor
/// joining GPU ones.
class OperationResult {
public:
  void addOperand(const FactSet &Facts) {
    mergeFacts(Any, Facts);
    bool AllKnown =
        !Facts.empty() &&
        llvm::all_of(Facts, [](const DeviceFact &F) { return F.isKnown(); });
    bool SomeGpu = llvm::any_of(
        Facts, [](const DeviceFact &F) { return F.Kind != DeviceKind::CPU; });
    if (AllKnown && SomeGpu)
      mergeFacts(Deciding, Facts);
  }
  bool empty() const { return Any.empty(); }
  FactSet result() const { return Deciding.empty() ? Any : Deciding; }
  /// The deciding operands' devices alone: empty when none decides.
  const FactSet &decided() const { return Deciding; }

private:
  FactSet Any;
  FactSet Deciding;
};

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
               const Expr *Literal = nullptr) {
  DeviceFact F;
  F.Kind = Kind;
  F.How = How;
  F.Origin = Origin;
  F.Literal = Literal;
  return FactSet{F};
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

} // namespace

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

/// The device facts as a lattice on the shared engine: the transfer and the
/// edges a machine takes are the flow's, for one function under one binding
/// of its parameters.
struct DeviceFlow::Lattice {
  using State = DeviceFlow::State;
  static constexpr const char *Name = "the device flow";

  DeviceFlow *Flow;
  Analysis *A;

  State entry() const;
  State unreached() const { return State(); }
  bool join(State &Into, const State &From) const {
    return mergeState(Into, From);
  }
  void transfer(State &S, const CFGElement &Element) const {
    Flow->transfer(*A, S, Element);
  }
  bool edgePossible(const CFGBlock &B, unsigned Succ) const;
};

struct DeviceFlow::Analysis {
  const FunctionDecl *Function = nullptr;
  const FunctionCfg *Cfg = nullptr;
  Bindings Params;
  std::unique_ptr<ForwardFlow<Lattice>> Solved;
  State Exit;
  bool ExitReached = false;
  bool Done = false;
  /// The work budget ran out before a fixed point: nothing it says counts.
  bool Failed = false;
  /// References and copies of module holders, to what they stand for.
  llvm::DenseMap<const Decl *, const Decl *> Aliases;
  /// Made while a member's value was still being worked out, so it may have
  /// seen "unknown" for it: not reused once that is over.
  bool Provisional = false;
};

DeviceFlow::DeviceFlow(ASTContext &Ctx, const UserCode &Code, UnitIndex &Index,
                       Machine On)
    : Ctx(Ctx), Code(Code), Index(Index), On(On), Cfgs(Ctx) {}

FactSet DeviceFlow::evalTakenArms(
    const ConditionalOperator *Cond,
    llvm::function_ref<FactSet(const Expr *)> Eval) const {
  api::Availability Known = api::availabilityOf(Cond->getCond());
  bool Cuda = On == Machine::WithGpu;
  bool True = Known.branchPossible(true, Cuda);
  bool False = Known.branchPossible(false, Cuda);
  if (True && !False)
    return Eval(Cond->getTrueExpr());
  if (False && !True)
    return Eval(Cond->getFalseExpr());
  FactSet Result = Eval(Cond->getTrueExpr());
  mergeFacts(Result, Eval(Cond->getFalseExpr()));
  return Result;
}

DeviceFlow::~DeviceFlow() = default;

bool DeviceFlow::isTracked(QualType T) const {
  return api::carriesTensors(T) || api::moduleClassOf(T) ||
         api::isDeviceLike(T) || api::isDataLoaderValue(T) ||
         api::isTensorCarrier(T);
}

namespace {
/// A module whose construction puts its parameters on the CPU: any but a
/// TorchScript module, which is empty until a module is loaded into it.
bool constructedOnCpu(QualType T) {
  const CXXRecordDecl *Class = api::moduleClassOf(T);
  return Class && !api::isScriptModuleClass(Class);
}
} // namespace

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

namespace {
/// A declaration that only names another variable: `T &r = x;`, or a copy
/// of a module holder or pointer, which shares its module.
bool isAliasDeclaration(const VarDecl *Var) {
  QualType T = Var->getType();
  if (T->isReferenceType())
    return true;
  QualType Bare = api::bareType(T);
  return api::moduleClassOf(Bare) &&
         !api::isModuleClass(Bare->getAsCXXRecordDecl());
}

/// Code the flow of Var's function does not follow may assign Var: a lambda
/// that captures it by reference, a pointer to it, a function of the
/// program that takes it by non-const reference (the flow keeps what such a
/// tensor held when the function is not in the unit).
class EscapeFinder : public RecursiveASTVisitor<EscapeFinder> {
public:
  explicit EscapeFinder(const VarDecl *Var) : Var(Var) {}
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || api::isInTorchNamespace(Callee))
      return true;
    // A member operator's object is its first argument, not a parameter.
    unsigned Skip =
        isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee);
    for (unsigned I = Skip; I < Call->getNumArgs(); ++I) {
      unsigned Param = I - Skip;
      if (Param >= Callee->getNumParams())
        break;
      QualType T = Callee->getParamDecl(Param)->getType();
      const auto *Ref =
          dyn_cast<DeclRefExpr>(api::ignoreWrappers(Call->getArg(I)));
      if (Ref && Ref->getDecl() == Var && T->isReferenceType() &&
          !T.getNonReferenceType().isConstQualified())
        Escapes = true;
    }
    return !Escapes;
  }
  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    for (const LambdaCapture &Capture : Lambda->captures())
      if (Capture.capturesVariable() && Capture.getCapturedVar() == Var &&
          Capture.getCaptureKind() == LCK_ByRef)
        Escapes = true;
    return !Escapes && RecursiveASTVisitor::TraverseLambdaExpr(Lambda);
  }
  bool VisitUnaryOperator(UnaryOperator *Op) {
    const auto *Ref = dyn_cast<DeclRefExpr>(Op->getSubExpr()->IgnoreParens());
    if (Op->getOpcode() == UO_AddrOf && Ref && Ref->getDecl() == Var)
      Escapes = true;
    return !Escapes;
  }
  bool Escapes = false;

private:
  const VarDecl *Var;
};

/// `torch::Tensor t;`: an undefined tensor, on no device until something is
/// assigned to it, in a function whose flow sees every assignment.
bool isUndefinedTensor(const VarDecl *Var) {
  const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Var->getInit());
  if (!Construct || Construct->getNumArgs() != 0 ||
      !api::isTensor(Var->getType()) || !Var->isLocalVarDecl())
    return false;
  const auto *Function = dyn_cast<FunctionDecl>(Var->getDeclContext());
  if (!Function || !Function->getBody())
    return false;
  EscapeFinder Finder(Var);
  Finder.TraverseStmt(Function->getBody());
  return !Finder.Escapes;
}
} // namespace

void DeviceFlow::transfer(Analysis &A, State &S, const CFGElement &Element) {
  if (std::optional<CFGInitializer> Init = Element.getAs<CFGInitializer>()) {
    const CXXCtorInitializer *I = Init->getInitializer();
    const FieldDecl *Field = I->getMember();
    if (!Field || !isTracked(Field->getType()) || !I->getInit())
      return;
    if (!I->isWritten() && constructedOnCpu(Field->getType())) {
      // `Net model_;` constructed implicitly: its parameters are on the CPU.
      const auto *Construct =
          dyn_cast<CXXConstructExpr>(api::ignoreWrappers(I->getInit()));
      S[Field] = builtModule(Field->getType(),
                             Construct ? Construct->getConstructor() : nullptr,
                             nullptr, Field);
      return;
    }
    S[Field] = eval(A, S, I->getInit());
    return;
  }
  std::optional<CFGStmt> Statement = Element.getAs<CFGStmt>();
  if (!Statement)
    return;
  const Stmt *St = Statement->getStmt();

  if (const auto *DS = dyn_cast<DeclStmt>(St)) {
    for (const Decl *D : DS->decls()) {
      const auto *Var = dyn_cast<VarDecl>(D);
      if (Var && Var->getInit() && api::isModuleContainer(Var->getType()))
        forgetModulesIn(A, S, Var->getInit());
      if (!Var || !isTracked(Var->getType()))
        continue;
      const Expr *Init = Var->getInit();
      if (Init && isAliasDeclaration(Var)) {
        const auto *Ref =
            dyn_cast_or_null<DeclRefExpr>(api::ignoreWrappers(Init));
        if (Ref && isa<VarDecl>(Ref->getDecl()) && Ref->getDecl() != Var) {
          A.Aliases[Var] = canonical(A, Ref->getDecl());
          continue;
        }
      }
      assign(S, Var,
             Init && !isUndefinedTensor(Var) ? eval(A, S, Init) : FactSet());
    }
    return;
  }

  if (const auto *Assign = dyn_cast<BinaryOperator>(St)) {
    if (Assign->getOpcode() == BO_Assign &&
        isTracked(Assign->getLHS()->getType()))
      assign(S, storageOf(A, Assign->getLHS(), /*Create=*/true),
             eval(A, S, Assign->getRHS()));
    return;
  }

  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(St)) {
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
        api::isModuleContainer(Op->getArg(0)->getType())) {
      forgetModulesIn(A, S, Op->getArg(1));
      return;
    }
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      // std::tie(h, c) = ..., std::forward_as_tuple(out, std::tie(h, c)) =
      // model->forward(...): each tied variable gets the tuple's device.
      if (const auto *Tie =
              dyn_cast<CallExpr>(api::ignoreWrappers(Op->getArg(0)));
          Tie && api::isTupleOfReferences(Tie)) {
        assignTied(A, S, Tie, eval(A, S, Op->getArg(1)));
        return;
      }
      // outputs[i] = t, outputs.at(i) = t: an element of a sequence.
      const Expr *Target = api::ignoreWrappers(Op->getArg(0));
      const Expr *Element = nullptr;
      if (const auto *Access = dyn_cast<CXXMemberCallExpr>(Target))
        Element = Access->getImplicitObjectArgument();
      else if (const auto *Index = dyn_cast<CXXOperatorCallExpr>(Target);
               Index && Index->getOperator() == OO_Subscript)
        Element = Index->getArg(0);
      if (Element && api::isTensorSequence(Element->getType())) {
        addToSequence(A, S, Element, eval(A, S, Op->getArg(1)));
        return;
      }
      if (isTracked(Op->getArg(0)->getType()))
        assign(S, storageOf(A, Op->getArg(0), /*Create=*/true),
               eval(A, S, Op->getArg(1)));
      return;
    }
    if (const FunctionDecl *Callee = definitionOf(Op->getDirectCallee())) {
      if (Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
        applyCalleeEffects(A, S, Callee, parameterArgs(Op, Callee));
    } else if (const FunctionDecl *Declared = Op->getDirectCallee()) {
      forgetFilledByUnknownCallee(A, S, Declared, parameterArgs(Op, Declared));
    }
    return;
  }

  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(St)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    // nets.push_back(model.ptr()), layers.emplace_back(conv), ...
    if (api::isModuleContainer(
            Member->getImplicitObjectArgument()->getType())) {
      for (const Expr *Arg : Member->arguments())
        forgetModulesIn(A, S, Arg);
      return;
    }
    // inputs.push_back(t), outputs.emplace_back(t)
    if (api::isTensorSequence(Member->getImplicitObjectArgument()->getType())) {
      llvm::StringRef Name =
          MD && MD->getIdentifier() ? MD->getName() : llvm::StringRef();
      if (Name == "push_back" || Name == "emplace_back" || Name == "insert" ||
          Name == "emplace") {
        FactSet Added;
        for (const Expr *Arg : Member->arguments())
          if (isTracked(Arg->getType()))
            mergeFacts(Added, eval(A, S, Arg));
        addToSequence(A, S, Member->getImplicitObjectArgument(), Added);
      }
      return;
    }
    // batch.to(device) in place: every tensor the object holds moves.
    if (MD && !MD->getParent()->isInStdNamespace() &&
        api::isTensorCarrier(Member->getImplicitObjectArgument()->getType()) &&
        (MD->getReturnType()->isVoidType() ||
         MD->getReturnType()->isLValueReferenceType()))
      if (std::optional<FactSet> Moved = destinationOf(A, S, Member)) {
        assign(S,
               storageOf(A, Member->getImplicitObjectArgument(),
                         /*Create=*/true),
               *Moved);
        return;
      }
    if (api::isModuleTo(MD) && Member->getNumArgs() >= 1) {
      const Expr *Target = Member->getArg(0);
      if (!api::isDeviceLike(Target->getType()))
        return; // module->to(torch::kHalf) keeps its device
      assign(S,
             storageOf(A, Member->getImplicitObjectArgument(), /*Create=*/true),
             relabel(evalDevice(A, S, Target), Provenance::ModuleMoved, Member,
                     Target));
      return;
    }
    if (const FunctionDecl *Callee = definitionOf(MD)) {
      if (Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
        applyCalleeEffects(A, S, Callee, parameterArgs(Member, Callee));
    } else if (MD) {
      forgetFilledByUnknownCallee(A, S, MD, parameterArgs(Member, MD));
    }
    return;
  }

  if (const auto *Call = dyn_cast<CallExpr>(St)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD)
      return;
    // torch::load(tensor, path) fills a tensor on the CPU.
    if (api::torchFunctionName(FD) == "load" && Call->getNumArgs() >= 1 &&
        api::isTensor(Call->getArg(0)->getType())) {
      assign(S, storageOf(A, Call->getArg(0), /*Create=*/true),
             single(DeviceKind::CPU, Provenance::Loaded, Call));
      return;
    }
    // torch::load(model, path, device) puts the parameters it reads on the
    // device (InputArchive::read sets each one's data); without a device,
    // they stay where they were.
    if (api::torchFunctionName(FD) == "load" && Call->getNumArgs() >= 3 &&
        api::moduleClassOf(Call->getArg(0)->getType()) &&
        !isa<CXXDefaultArgExpr>(Call->getArg(2)) &&
        (api::isDeviceLike(Call->getArg(2)->getType()) ||
         api::isOptionalDevice(Call->getArg(2)->getType()))) {
      assign(S, storageOf(A, Call->getArg(0), /*Create=*/true),
             relabel(evalDevice(A, S, Call->getArg(2)),
                     Provenance::ModuleLoaded, Call, Call->getArg(2)));
      return;
    }
    if (const FunctionDecl *Callee = definitionOf(FD)) {
      if (Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
        applyCalleeEffects(A, S, Callee, parameterArgs(Call, Callee));
    } else {
      forgetFilledByUnknownCallee(A, S, FD, parameterArgs(Call, FD));
    }
  }
}

void DeviceFlow::addToSequence(Analysis &A, State &S, const Expr *Sequence,
                               const FactSet &Facts) {
  Storage Key = storageOf(A, Sequence, /*Create=*/true);
  if (!Key)
    return;
  FactSet Held;
  if (auto It = S.find(Key); It != S.end())
    Held = It->second;
  else
    Held = eval(A, S, Sequence);
  mergeFacts(Held, Facts);
  S[Key] = std::move(Held);
}

void DeviceFlow::forgetFilledByUnknownCallee(
    Analysis &A, State &S, const FunctionDecl *Callee,
    llvm::ArrayRef<const Expr *> Args) {
  for (unsigned I = 0; I < Callee->getNumParams() && I < Args.size(); ++I) {
    QualType T = Callee->getParamDecl(I)->getType();
    if (!T->isReferenceType() || T.getNonReferenceType().isConstQualified())
      continue;
    if (!api::isTensorSequence(T) && !api::isTensorTuple(T))
      continue;
    if (Storage Target = storageOf(A, Args[I], /*Create=*/true))
      assign(S, Target, unknown());
  }
}

void DeviceFlow::applyCalleeEffects(Analysis &A, State &S,
                                    const FunctionDecl *Callee,
                                    llvm::ArrayRef<const Expr *> Args) {
  // Only arguments the callee can change for the caller: modules (holders
  // share their module even when copied) and tensors by non-const reference.
  llvm::SmallVector<std::pair<unsigned, Storage>, 2> Changeable;
  for (unsigned I = 0; I < Callee->getNumParams() && I < Args.size(); ++I) {
    QualType T = Callee->getParamDecl(I)->getType();
    bool ByMutableRef =
        T->isReferenceType() && !T.getNonReferenceType().isConstQualified();
    bool SharesModule = api::moduleClassOf(T) != nullptr;
    if (!(SharesModule ||
          (ByMutableRef && (api::isTensor(T) || api::isTensorCarrier(T)))))
      continue;
    if (Storage Target = storageOf(A, Args[I], /*Create=*/true))
      Changeable.push_back({I, Target});
  }
  if (Changeable.empty())
    return;
  Bindings Arguments;
  for (unsigned I = 0; I < Callee->getNumParams(); ++I)
    Arguments.push_back(I < Args.size() &&
                                isTracked(Callee->getParamDecl(I)->getType())
                            ? eval(A, S, Args[I])
                            : FactSet());
  Analysis *C = analyze(Callee, Arguments);
  if (!C) {
    // What the callee does is unknown: so is what it leaves behind.
    for (auto [Index, Target] : Changeable)
      assign(S, Target, unknown());
    return;
  }
  if (!C->ExitReached)
    return;
  for (auto [Index, Target] : Changeable) {
    auto It = C->Exit.find(C->Function->getParamDecl(Index));
    if (It != C->Exit.end() && It->second != Arguments[Index])
      assign(S, Target, It->second);
  }
}

//===----------------------------------------------------------------------===//
// Evaluating expressions
//===----------------------------------------------------------------------===//

namespace {
/// Bounds the recursion of expression evaluation, whatever the input.
class EvalDepth {
public:
  explicit EvalDepth(unsigned &Depth) : Depth(Depth) { ++Depth; }
  ~EvalDepth() { --Depth; }
  bool exceeded() const { return Depth > 256; }

private:
  unsigned &Depth;
};
} // namespace

FactSet DeviceFlow::evalDevice(Analysis &A, const State &S, const Expr *E) {
  EvalDepth Guard(EvalNesting);
  if (Guard.exceeded())
    return unknown();
  E = api::ignoreWrappers(E);
  if (!E)
    return unknown();
  if (std::optional<api::DeviceLiteral> L = api::asDeviceLiteral(E)) {
    DeviceFact F;
    F.Kind = L->Kind;
    F.Index = L->Index;
    F.How = Provenance::DeviceLiteral;
    F.Literal = L->Spelling;
    F.Origin = E;
    F.DeviceExpr = E;
    return FactSet{F};
  }
  if (api::isTensorOptions(E->getType()))
    return evalOptions(A, S, E);
  if (const auto *Cond = dyn_cast<ConditionalOperator>(E))
    return evalTakenArms(
        Cond, [&](const Expr *Arm) { return evalDevice(A, S, Arm); });
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    FactSet Facts = evalDeclRef(A, S, Ref->getDecl());
    for (DeviceFact &F : Facts)
      if (F.isKnown() && !F.Symbol)
        F.Symbol = Ref->getDecl();
    sortFacts(Facts);
    return Facts;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    if (!isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
      return memberDeviceOfObject(A, S, Member);
    // A device kept in a member: this->device_.
    FactSet Facts = evalDeclRef(A, S, Member->getMemberDecl());
    for (DeviceFact &F : Facts)
      if (F.isKnown() && !F.Symbol)
        F.Symbol = Member->getMemberDecl();
    sortFacts(Facts);
    return Facts;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    // Device(device_type_variable[, index]), optional<Device>(device).
    if (Construct->getNumArgs() >= 1 &&
        api::isDeviceLike(Construct->getArg(0)->getType()))
      return evalDevice(A, S, Construct->getArg(0));
    if (Construct->getNumArgs() >= 1 && api::isDevice(Construct->getType()) &&
        api::isStringLike(Construct->getArg(0)->getType()))
      return namedDevice(Construct->getArg(0), E);
    return unknown();
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    // tensor.device(), options.device(): where that value lives.
    if (MD && MD->getDeclName().isIdentifier() && MD->getName() == "device" &&
        Member->getNumArgs() == 0) {
      const Expr *Object = Member->getImplicitObjectArgument();
      if (api::isTensorOptions(Object->getType()))
        return evalOptions(A, S, Object);
      return eval(A, S, Object);
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (const FunctionDecl *Callee = definitionOf(Call->getDirectCallee()))
      if (Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
        return calleeReturn(A, S, Callee, parameterArgs(Call, Callee));
  return unknown();
}

namespace {
/// Var is assigned, or handed by reference to something that may set it
/// (a command-line parser binding the flag), in Body.
bool setIn(const VarDecl *Var, const Stmt *Body) {
  if (!Body)
    return false;
  auto Names = [&](const Expr *E) {
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(api::ignoreWrappers(E));
    return Ref && Ref->getDecl() == Var;
  };
  if (const auto *Op = dyn_cast<BinaryOperator>(Body))
    if (Op->isAssignmentOp() && Names(Op->getLHS()))
      return true;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Body))
    if (Op->isAssignmentOp() && Op->getNumArgs() >= 1 && Names(Op->getArg(0)))
      return true;
  if (const auto *Call = dyn_cast<CallExpr>(Body))
    if (const FunctionDecl *Callee = Call->getDirectCallee())
      for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
           ++I) {
        QualType T = Callee->getParamDecl(I)->getType();
        if ((T->isReferenceType() || T->isPointerType()) &&
            !T->getPointeeType().isConstQualified() && Names(Call->getArg(I)))
          return true;
      }
  if (const auto *Address = dyn_cast<UnaryOperator>(Body))
    if (Address->getOpcode() == UO_AddrOf && Names(Address->getSubExpr()))
      return true;
  for (const Stmt *Child : Body->children())
    if (setIn(Var, Child))
      return true;
  return false;
}

/// The literal that names a device in text E: the literal itself, or the
/// literal a local variable is initialized with and never set again; the
/// leftmost literal of a concatenation (`"cuda:" + std::to_string(i)`).
const StringLiteral *deviceText(const Expr *E, bool &Concatenated,
                                const UnitIndex &Index) {
  E = api::ignoreWrappers(E);
  if (const StringLiteral *Literal = api::stringArgument(E))
    return Literal;
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E))
    if (Op->getOperator() == OO_Plus && Op->getNumArgs() == 2) {
      Concatenated = true;
      return deviceText(Op->getArg(0), Concatenated, Index);
    }
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || isa<ParmVarDecl>(Var) || !Var->isLocalVarDecl() ||
      !Var->getInit())
    return nullptr;
  const FunctionDecl *In = Index.enclosingFunction(Ref);
  if (!Var->getType().isConstQualified() && (!In || setIn(Var, In->getBody())))
    return nullptr;
  return deviceText(Var->getInit(), Concatenated, Index);
}
} // namespace

FactSet DeviceFlow::namedDevice(const Expr *Name, const Expr *Device) {
  bool Concatenated = false;
  if (const StringLiteral *Literal = deviceText(Name, Concatenated, Index)) {
    llvm::StringRef Text = Literal->getString();
    if (Concatenated && Text.starts_with("cuda"))
      return single(DeviceKind::CUDA, Provenance::DeviceLiteral, Device,
                    Literal);
    std::optional<api::DeviceLiteral> L =
        Concatenated ? std::nullopt : api::parseDeviceString(Text, Literal);
    if (L && L->Kind != DeviceKind::Other) {
      FactSet Facts =
          single(L->Kind, Provenance::DeviceLiteral, Device, Literal);
      Facts.front().Index = L->Index;
      Facts.front().DeviceExpr = Device;
      return Facts;
    }
    return unknown();
  }
  if (On != Machine::WithGpu)
    return unknown();
  // Text the program reads at run time: the GPU on the runs that name one.
  DeviceFact Named;
  Named.Kind = DeviceKind::CUDA;
  Named.How = Provenance::NamedAtRunTime;
  Named.RunTimeChoice = true;
  Named.Origin = Device;
  Named.DeviceExpr = Device;
  const Expr *Bare = api::ignoreWrappers(Name);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Bare))
    Named.Symbol = Ref->getDecl();
  else if (const auto *Member = dyn_cast_or_null<MemberExpr>(Bare))
    Named.Symbol = Member->getMemberDecl();
  Named.OriginDecl = Named.Symbol;
  return FactSet{Named};
}

FactSet DeviceFlow::evalOptions(Analysis &A, const State &S, const Expr *E) {
  EvalDepth Guard(EvalNesting);
  if (Guard.exceeded())
    return unknown();
  E = api::ignoreWrappers(E);
  if (!E)
    return unknown();
  auto DefaultOptions = [&] {
    return single(DeviceKind::CPU, Provenance::DefaultOptions, E);
  };
  if (isa<CXXDefaultArgExpr>(E) || isa<InitListExpr>(E))
    return DefaultOptions();
  if (std::optional<api::DeviceLiteral> L = api::asDeviceLiteral(E))
    return evalDevice(A, S, E);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (Construct->getNumArgs() == 0)
      return DefaultOptions();
    const Expr *First = Construct->getArg(0);
    if (api::isTensorOptions(First->getType()))
      return evalOptions(A, S, First);
    if (api::isDeviceLike(First->getType()))
      return evalDevice(A, S, First);
    // TensorOptions(device_name): x.to(std::string) converts through it.
    if (api::isStringLike(First->getType()))
      return namedDevice(First, E);
    return DefaultOptions(); // TensorOptions(kFloat), TensorOptions(kStrided)
  }
  if (const auto *Cond = dyn_cast<ConditionalOperator>(E))
    return evalTakenArms(
        Cond, [&](const Expr *Arm) { return evalOptions(A, S, Arm); });
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return evalDeclRef(A, S, Ref->getDecl());
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    if (MD && MD->getDeclName().isIdentifier() && MD->getName() == "device" &&
        Member->getNumArgs() >= 1)
      return evalDevice(A, S, Member->getArg(0));
    if (MD && MD->getDeclName().isIdentifier() &&
        MD->getName() == "pinned_memory" && Member->getNumArgs() >= 1) {
      std::optional<bool> Pin = api::constantBool(Member->getArg(0), Ctx);
      return withPinned(evalOptions(A, S, Member->getImplicitObjectArgument()),
                        Pin.value_or(true));
    }
    // .dtype(), .requires_grad(), .layout(): same device.
    return evalOptions(A, S, Member->getImplicitObjectArgument());
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    llvm::StringRef Name = api::torchFunctionName(FD);
    if (Name == "device" && Call->getNumArgs() >= 1)
      return evalDevice(A, S, Call->getArg(0));
    if (!Name.empty())
      return DefaultOptions(); // torch::dtype(...), torch::requires_grad()
    if (const FunctionDecl *Callee = definitionOf(FD))
      if (Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
        return calleeReturn(A, S, Callee, parameterArgs(Call, Callee));
  }
  return unknown();
}

namespace {
/// The module variables and members an expression names.
class ModuleReferences : public RecursiveASTVisitor<ModuleReferences> {
public:
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (isa<VarDecl>(Ref->getDecl()) && api::moduleClassOf(Ref->getType()))
      Found.push_back(Ref);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *Member) {
    if (isa<FieldDecl>(Member->getMemberDecl()) &&
        api::moduleClassOf(Member->getType()))
      Found.push_back(Member);
    return true;
  }
  llvm::SmallVector<const Expr *, 4> Found;
};
} // namespace

void DeviceFlow::forgetModulesIn(Analysis &A, State &S, const Expr *E) {
  ModuleReferences References;
  References.TraverseStmt(const_cast<Expr *>(E));
  for (const Expr *Ref : References.Found)
    if (Storage Target = storageOf(A, Ref, /*Create=*/true))
      assign(S, Target, unknown());
}

void DeviceFlow::assignTied(Analysis &A, State &S, const CallExpr *Tie,
                            const FactSet &Facts) {
  for (const Expr *Arg : Tie->arguments()) {
    if (const auto *Nested = dyn_cast<CallExpr>(api::ignoreWrappers(Arg));
        Nested && api::isTupleOfReferences(Nested)) {
      assignTied(A, S, Nested, Facts);
      continue;
    }
    if (isTracked(Arg->getType()))
      if (Storage Target = storageOf(A, Arg, /*Create=*/true))
        assign(S, Target, Facts);
  }
}

FactSet DeviceFlow::evalDeclRef(Analysis &A, const State &S,
                                const ValueDecl *D) {
  // auto [output, state] = model->forward(...): the elements of a tuple are
  // where the tuple is.
  if (const auto *Binding = dyn_cast<BindingDecl>(D))
    if (const ValueDecl *Whole = Binding->getDecomposedDecl())
      return evalDeclRef(A, S, Whole);
  const Decl *Key = canonical(A, D);
  auto It = S.find(Key);
  if (It != S.end())
    return It->second;
  if (const auto *Field = dyn_cast<FieldDecl>(Key))
    return fieldFacts(Field);
  const auto *Var = dyn_cast<VarDecl>(Key);
  if (!Var)
    return unknown();
  const auto *Owner = dyn_cast<FunctionDecl>(Var->getDeclContext());
  if (Owner && definitionOf(Owner) != A.Function) {
    // A variable of an enclosing function, captured by a lambda.
    if (A.Function && isa<CXXMethodDecl>(A.Function) &&
        cast<CXXMethodDecl>(A.Function)->getParent()->isLambda())
      return capturedFacts(A.Function, Var);
    return unknown();
  }
  if (isa<ParmVarDecl>(Var))
    return unknown();
  if (!Var->hasLocalStorage() && Var->hasInit() && Depth <= MaxDepth) {
    // A global or static: its initialiser, unless some function changes it.
    ++Depth;
    FactSet Result = eval(A, State(), Var->getInit());
    --Depth;
    if (Index.isChanged(Var)) {
      QualType T = api::bareType(Var->getType());
      if (!api::isDevice(T) && !api::isDeviceType(T))
        return unknown();
      return assignedGlobalFacts(Var, nullptr, std::move(Result));
    }
    return Result;
  }
  return unknown();
}

FactSet DeviceFlow::memberDeviceOfObject(Analysis &A, const State &S,
                                         const MemberExpr *Member) {
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (!Field || Member->isArrow())
    return unknown();
  // Assigned earlier in this function: options.device = torch::kCUDA.
  if (Storage Key = storageOf(A, Member, /*Create=*/false))
    if (auto It = S.find(Key); It != S.end())
      return It->second;
  // A member of a global options object: what it starts as, and what user
  // code assigns to it.
  const auto *Ref =
      dyn_cast<DeclRefExpr>(api::ignoreWrappers(Member->getBase()));
  const auto *Global = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Global || Global->hasLocalStorage() || Depth > MaxDepth)
    return unknown();
  FactSet Initial = unknown();
  const auto *Init = dyn_cast_or_null<CXXConstructExpr>(
      Global->getInit() ? Global->getInit()->IgnoreImplicit() : nullptr);
  if (Init && Init->getNumArgs() == 0 && Field->hasInClassInitializer() &&
      Field->getInClassInitializer()) {
    ++Depth;
    Analysis None;
    Initial = evalDevice(None, State(), Field->getInClassInitializer());
    --Depth;
  }
  FactSet Facts = assignedGlobalFacts(Global, Field, std::move(Initial));
  for (DeviceFact &F : Facts)
    if (F.isKnown() && !F.Symbol)
      F.Symbol = Field;
  sortFacts(Facts);
  return Facts;
}

FactSet DeviceFlow::assignedGlobalFacts(const VarDecl *Global,
                                        const FieldDecl *Member,
                                        FactSet Initial) {
  Global = Global->getCanonicalDecl();
  auto Key = std::make_pair(Global, Member);
  auto Cached = GlobalCache.find(Key);
  if (Cached != GlobalCache.end())
    return Cached->second ? *Cached->second : unknown();
  std::optional<llvm::ArrayRef<UnitIndex::GlobalStore>> Stores =
      Index.globalStores(Global, Member);
  if (!Stores)
    return unknown();
  if (Stores->empty())
    return Initial;
  GlobalCache[Key] = std::nullopt;
  // Which of the values a use sees depends on when it runs: each is a
  // possibility.
  FactSet Result = std::move(Initial);
  bool Provisional = false;
  for (const UnitIndex::GlobalStore &Store : *Stores) {
    Analysis *In = Store.In ? standalone(Store.In) : nullptr;
    if (!In) {
      // Asked while the assigning function is being solved: not final.
      Provisional =
          Provisional ||
          (Store.In && StandaloneInProgress.count(definitionOf(Store.In)));
      mergeFacts(Result, unknown());
      continue;
    }
    std::optional<State> At = stateBefore(*In, Store.Value);
    if (!At)
      continue; // not assigned on this machine
    mergeFacts(Result, evalDevice(*In, *At, Store.Value));
  }
  // Several possible devices: the GPU on some runs, which the opportunity
  // rules count and no error does.
  bool Mixed = false;
  for (const DeviceFact &F : Result)
    if (!F.isKnown() || F.Kind != Result.front().Kind)
      Mixed = true;
  for (DeviceFact &F : Result) {
    if (!F.isKnown())
      continue;
    F.RunTimeChoice = F.RunTimeChoice || Mixed;
    F.Symbol = Member ? static_cast<const ValueDecl *>(Member) : Global;
  }
  sortFacts(Result);
  if (FieldsInProgress.empty() && !Provisional)
    GlobalCache[Key] = Result;
  else
    GlobalCache.erase(Key);
  return Result;
}

FactSet DeviceFlow::dataLoaderFacts(const Expr *E) {
  // Follow the expression back to the loader, whose type names the dataset.
  const Expr *Current = E;
  for (unsigned Steps = 0; Current && Steps < 8; ++Steps) {
    Current = api::ignoreWrappers(Current);
    QualType T = Current->getType();
    if (api::isDataLoaderValue(T) && api::datasetHandlesDevices(T))
      return unknown();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Current))
      Current = Op->getNumArgs() >= 1 ? Op->getArg(0) : nullptr;
    else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Current))
      Current = Member->getImplicitObjectArgument();
    else if (const auto *Ref = dyn_cast<DeclRefExpr>(Current)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      Current = Var ? Var->getInit() : nullptr;
    } else if (const auto *Call = dyn_cast<CallExpr>(Current)) {
      // make_data_loader(dataset, ...): the dataset argument.
      Current = Call->getNumArgs() >= 1 ? Call->getArg(0) : nullptr;
    } else
      break;
  }
  return single(DeviceKind::CPU, Provenance::DataLoader, E);
}

namespace {
/// For the iterator of a range-for (`*__begin1`), the sequence it walks:
/// `for (auto &p : model->parameters())` reads the module's tensors.
const Expr *rangeOfLoopIterator(const Expr *Iterator) {
  auto InitOf = [](const Expr *E) -> const Expr * {
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(api::ignoreWrappers(E));
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return Var && Var->isImplicit() ? Var->getInit() : nullptr;
  };
  const Expr *Begin = api::ignoreWrappers(InitOf(Iterator));
  const Expr *Range = nullptr;
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(Begin))
    Range = Member->getImplicitObjectArgument();
  else if (const auto *Call = dyn_cast_or_null<CallExpr>(Begin);
           Call && Call->getNumArgs() == 1)
    Range = Call->getArg(0);
  if (!Range)
    return nullptr;
  // The range itself is held in an implicit variable (`__range1`).
  if (const Expr *Held = InitOf(Range))
    Range = Held;
  return api::carriesTensors(Range->getType()) ? Range : nullptr;
}
} // namespace

FactSet DeviceFlow::eval(Analysis &A, const State &S, const Expr *E) {
  EvalDepth Guard(EvalNesting);
  if (Guard.exceeded())
    return unknown();
  E = api::ignoreWrappers(E);
  if (!E)
    return unknown();
  QualType T = E->getType();
  if (api::isDevice(T) || api::isDeviceType(T) || api::isOptionalDevice(T))
    return evalDevice(A, S, E);
  if (api::isTensorOptions(T))
    return evalOptions(A, S, E);

  if (isa<CXXNullPtrLiteralExpr>(E) || isa<GNUNullExpr>(E))
    return FactSet();

  if (const auto *Cond = dyn_cast<ConditionalOperator>(E))
    return evalTakenArms(Cond,
                         [&](const Expr *Arm) { return eval(A, S, Arm); });

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return evalDeclRef(A, S, Ref->getDecl());

  if (api::isTensorSequence(T) || api::isTensorTuple(T))
    if (std::optional<FactSet> Elements = evalAggregate(A, S, E))
      return *Elements;

  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    const Expr *Base = Member->getBase()->IgnoreParenImpCasts();
    if (isa<CXXThisExpr>(Base))
      return evalDeclRef(A, S, Member->getMemberDecl());
    // A member of a local object that was assigned: batch.data = ...
    if (Storage Key = storageOf(A, Member, /*Create=*/false))
      if (auto It = S.find(Key); It != S.end())
        return It->second;
    // batch.data, batch.target: the tensors of an example.
    if (api::isExample(Base->getType()) ||
        (Base->getType()->isPointerType() &&
         api::isExample(Base->getType()->getPointeeType())))
      return eval(A, S, Base);
    // batch.fields, result->scores: a tensor the object carries.
    if (api::isTensorCarrier(Base->getType()))
      return eval(A, S, Base);
    return unknown();
  }

  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    const Expr *Object = Member->getImplicitObjectArgument();
    // inputs.at(0), outputs.front(): an element of a sequence of tensors.
    if (Object && api::isTensorSequence(Object->getType()) &&
        api::carriesTensors(Member->getType()))
      return eval(A, S, Object);
    // output.toTensor(), output.toTuple(), list.get(0): what a TorchScript
    // value holds.
    if (Object && api::isScriptValue(Object->getType()) &&
        api::carriesTensors(Member->getType()))
      return eval(A, S, Object);
    // packed.data(): the packed tensor, where the sequence is.
    if (Object && api::isPackedSequence(Object->getType()) && MD &&
        MD->getDeclName().isIdentifier() && MD->getName() == "data")
      return eval(A, S, Object);
    if (api::isModuleCall(Member))
      return moduleOutput(A, S, Member);
    if (Object && api::isTensorCarrier(Object->getType()))
      if (std::optional<FactSet> Carried = evalCarrierMethod(A, S, Member))
        return *Carried;
    // model->parameters(), model->buffers(): the module's tensors, where it
    // is. Where that is several devices (or one, and unknown on some
    // paths), what is read off a module moved on some paths only
    // (`torch::randn(n, model->parameters()[0].device())`) goes where the
    // module went, which separate facts cannot say: each is then a run-time
    // choice, the GPU for the opportunity rules and the ground of no error.
    if (const Expr *Owner = api::parametersOwner(Member);
        Owner && api::isTensorSequence(Member->getType())) {
      FactSet Module = eval(A, S, Owner);
      llvm::SmallSet<int, 2> Kinds;
      for (const DeviceFact &F : Module)
        Kinds.insert(F.isKnown() ? static_cast<int>(F.Kind) : -1);
      if (Module.empty() || (Kinds.size() == 1 && Kinds.count(-1)))
        return unknown();
      if (Kinds.size() > 1)
        for (DeviceFact &F : Module)
          F.RunTimeChoice = true;
      return Module;
    }
    if (api::isTensorMethod(MD)) {
      llvm::StringRef Name = MD->getName();
      // x.to(other) may change the dtype too: the device expression stays
      // the one the device was written with.
      if (Name == "to" && Member->getNumArgs() >= 1 &&
          api::isTensor(Member->getArg(0)->getType()))
        return relabel(eval(A, S, Member->getArg(0)), Provenance::MovedTo,
                       Member);
      if (std::optional<FactSet> Moved = destinationOf(A, S, Member))
        return *Moved;
      // x.to(torch::kHalf), x.to(options without a device): where it was.
      if (Name == "to" && Member->getNumArgs() >= 1)
        return api::isTensorOptions(Member->getArg(0)->getType())
                   ? eval(A, S, Object)
                   : withPinned(eval(A, S, Object), false);
      if (Name == "pin_memory")
        return withPinned(eval(A, S, Object), true);
      if (api::isTensor(Member->getType())) {
        FactSet Facts = eval(A, S, Object);
        // contiguous() copies only what is not contiguous; in place methods
        // (add_, copy_) return the tensor itself.
        if (api::isViewMethod(Name) || Name.ends_with("_"))
          return Facts;
        // a.sub(b), a.type_as(b): a tensor argument on a GPU puts the
        // result there too.
        OperationResult Operands;
        Operands.addOperand(Facts);
        for (const Expr *Arg : Member->arguments())
          if (api::isTensor(Arg->getType()))
            Operands.addOperand(eval(A, S, Arg));
        if (!Operands.decided().empty())
          Facts = Operands.decided();
        return withPinned(std::move(Facts), false);
      }
      if (api::isTensorSequence(Member->getType()) ||
          api::isTensorTuple(Member->getType()))
        return eval(A, S, Object); // split(), chunk(), unbind(), max(dim)
      return unknown();
    }
    if (api::isDataLoaderValue(Member->getType()))
      return dataLoaderFacts(Member);
    if (const FunctionDecl *Callee = definitionOf(MD)) {
      if (Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
        return calleeReturn(A, S, Callee, parameterArgs(Member, Callee));
    } else if (std::optional<FactSet> Returned = importedReturn(
                   A, S, Member, MD, parameterArgs(Member, MD))) {
      return *Returned;
    }
    return unknown();
  }

  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    OverloadedOperatorKind Kind = Op->getOperator();
    if (Kind == OO_Call && api::isModuleCall(Op))
      return moduleOutput(A, S, Op);
    if (Kind == OO_Arrow && Op->getNumArgs() >= 1)
      return eval(A, S, Op->getArg(0));
    if (Kind == OO_Subscript && Op->getNumArgs() == 2 &&
        (api::isTensorSequence(Op->getArg(0)->getType()) ||
         api::isScriptValue(Op->getArg(0)->getType()) ||
         api::isTensorCarrier(Op->getArg(0)->getType())))
      return eval(A, S, Op->getArg(0));
    if (Kind == OO_Star && Op->getNumArgs() == 1) {
      if (api::isDataLoaderValue(Op->getType()))
        return dataLoaderFacts(Op);
      if (const Expr *Range = rangeOfLoopIterator(Op->getArg(0)))
        return eval(A, S, Range);
      return eval(A, S, Op->getArg(0));
    }
    if (Kind == OO_Equal && Op->getNumArgs() == 2)
      return eval(A, S, Op->getArg(1));
    if (const FunctionDecl *Callee = definitionOf(Op->getDirectCallee())) {
      if (Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
        return calleeReturn(A, S, Callee, parameterArgs(Op, Callee));
    } else if (const FunctionDecl *Declared = Op->getDirectCallee()) {
      // An operator of the program defined in another unit: a loss's
      // operator().
      if (std::optional<FactSet> Returned =
              importedReturn(A, S, Op, Declared, parameterArgs(Op, Declared)))
        return *Returned;
    }
    if (api::isTensor(Op->getType())) {
      // Arithmetic, comparison, indexing: where the tensor operands are.
      OperationResult Result;
      for (const Expr *Arg : Op->arguments())
        if (api::isTensor(Arg->getType()))
          Result.addOperand(eval(A, S, Arg));
      return Result.empty() ? unknown() : withPinned(Result.result(), false);
    }
    if (api::isDataLoaderValue(Op->getType()))
      return dataLoaderFacts(Op);
    return unknown();
  }

  if (const auto *Call = dyn_cast<CallExpr>(E))
    return evalCall(A, S, Call);

  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (api::moduleClassOf(T)) {
      if (Construct->getNumArgs() == 1 &&
          Construct->getArg(0)->getType()->isNullPtrType())
        return FactSet(); // an empty holder: no module yet
      if (Construct->getNumArgs() == 0 && !constructedOnCpu(T))
        return FactSet(); // an empty TorchScript module
      return builtModule(T, Construct->getConstructor(), Construct, nullptr);
    }
    // c10::IValue(t), and the IValue each element of {t} is converted to.
    if (api::isScriptValue(T)) {
      FactSet Result;
      for (const Expr *Arg : Construct->arguments())
        if (api::carriesTensors(Arg->getType()))
          mergeFacts(Result, eval(A, S, Arg));
      return Result.empty() ? unknown() : Result;
    }
    if (api::isExample(T) && Construct->getNumArgs() >= 1) {
      FactSet Result;
      for (const Expr *Arg : Construct->arguments())
        if (api::isTensor(Arg->getType()))
          mergeFacts(Result, eval(A, S, Arg));
      return Result.empty() ? unknown() : Result;
    }
  }

  if (api::isTensorCarrier(T) &&
      (isa<CXXConstructExpr>(E) || isa<InitListExpr>(E)))
    return heldTensors(A, S, E);

  if (api::isDataLoaderValue(T))
    return dataLoaderFacts(E);
  return unknown();
}

std::optional<FactSet>
DeviceFlow::evalCarrierMethod(Analysis &A, const State &S,
                              const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *MD = Call->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier())
    return std::nullopt;
  // batch.to(device), sample.cuda(): the program's own method that moves
  // every tensor the object holds.
  if (std::optional<FactSet> Moved = destinationOf(A, S, Call))
    return Moved;
  // pack.at("x"), results.front(), sample.value(): an element of a standard
  // container is where the container's tensors are.
  if (MD->getParent()->isInStdNamespace() && isTracked(Call->getType()))
    return eval(A, S, Call->getImplicitObjectArgument());
  return std::nullopt;
}

std::optional<FactSet>
DeviceFlow::destinationOf(Analysis &A, const State &S,
                          const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *MD = Call->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier())
    return std::nullopt;
  llvm::StringRef Name = MD->getName();
  if (Name == "to" && Call->getNumArgs() >= 1) {
    const Expr *Target = Call->getArg(0);
    // x.to(options) may change the dtype too: the device expression stays
    // the one the device was written with. (Options before devices: a
    // device argument often converts to TensorOptions, which isDeviceLike
    // counts too.)
    if (api::isTensorOptions(Target->getType())) {
      FactSet Options = evalOptions(A, S, Target);
      if (allDefaultOptions(Options))
        return std::nullopt;
      return relabel(Options, Provenance::MovedTo, Call);
    }
    if (api::isDeviceLike(Target->getType()))
      return relabel(evalDevice(A, S, Target), Provenance::MovedTo, Call,
                     Target);
    return std::nullopt;
  }
  if (Name == "cuda" && Call->getNumArgs() == 0)
    return single(DeviceKind::CUDA, Provenance::ToCuda, Call, Call);
  if (Name == "cpu" && Call->getNumArgs() == 0)
    return single(DeviceKind::CPU, Provenance::ToCpu, Call, Call);
  return std::nullopt;
}

FactSet DeviceFlow::heldTensors(Analysis &A, const State &S, const Expr *E) {
  FactSet Result;
  std::function<void(const Expr *)> Collect = [&](const Expr *Part) {
    Part = api::ignoreWrappers(Part);
    if (!Part || isa<LambdaExpr>(Part))
      return;
    QualType T = Part->getType();
    bool Composite = isa<CXXConstructExpr>(Part) || isa<InitListExpr>(Part) ||
                     isa<CXXStdInitializerListExpr>(Part);
    if (Composite && !api::carriesTensors(T)) {
      for (const Stmt *Child : Part->children())
        if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
          Collect(ChildExpr);
      return;
    }
    if (isTracked(T) && !api::moduleClassOf(T) && !api::isDeviceLike(T))
      mergeFacts(Result, eval(A, S, Part));
  };
  for (const Stmt *Child : E->children())
    if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
      Collect(ChildExpr);
  return Result.empty() ? unknown() : Result;
}

FactSet DeviceFlow::evalCall(Analysis &A, const State &S,
                             const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return unknown();
  // std::any_cast<torch::Tensor>(pack["x"]): what the std::any holds.
  if (api::isTupleGet(Call) ||
      (isStdFunction(FD, "any_cast") && Call->getNumArgs() == 1))
    return eval(A, S, Call->getArg(0));

  auto FactoryResult = [&](const Expr *OptionsArg, Provenance How) {
    FactSet Options =
        OptionsArg ? evalOptions(A, S, OptionsArg)
                   : single(DeviceKind::CPU, Provenance::DefaultOptions, Call);
    FactSet Result;
    for (DeviceFact F : Options) {
      if (F.How == Provenance::DefaultOptions) {
        bool Pinned = F.Pinned;
        F = DeviceFact();
        F.Kind = DeviceKind::CPU;
        F.Pinned = Pinned;
      }
      F.How = How;
      F.Origin = Call;
      F.OriginDecl = nullptr;
      Result.push_back(F);
    }
    sortFacts(Result);
    return Result;
  };
  auto OptionsArgument = [&]() -> const Expr * {
    for (unsigned I = Call->getNumArgs(); I > 0; --I)
      if (api::isDeviceLike(Call->getArg(I - 1)->getType()))
        return Call->getArg(I - 1);
    return nullptr;
  };

  if (api::isFactoryFunction(FD))
    return FactoryResult(OptionsArgument(),
                         api::torchFunctionName(FD) == "from_blob"
                             ? Provenance::FromBlob
                             : Provenance::Factory);
  if (api::isLikeFactory(FD)) {
    const Expr *Options = OptionsArgument();
    if (Options && !isa<CXXDefaultArgExpr>(Options))
      return FactoryResult(Options, Provenance::Factory);
    return Call->getNumArgs() >= 1
               ? withPinned(eval(A, S, Call->getArg(0)), false)
               : unknown();
  }
  if (isStdFunction(FD, "move") || isStdFunction(FD, "forward"))
    return Call->getNumArgs() == 1 ? eval(A, S, Call->getArg(0)) : unknown();
  if (isStdFunction(FD, "make_shared") || isStdFunction(FD, "make_unique")) {
    if (constructedOnCpu(Call->getType()))
      return builtModule(Call->getType(), nullptr, Call, nullptr);
    // std::make_shared<torch::jit::Module>(torch::jit::load(path)) shares
    // the loaded module.
    if (api::moduleClassOf(Call->getType()) && Call->getNumArgs() == 1)
      return eval(A, S, Call->getArg(0));
    return unknown();
  }
  if (isStdFunction(FD, "make_tuple") || isStdFunction(FD, "make_pair")) {
    FactSet Result;
    for (const Expr *Arg : Call->arguments())
      if (isTracked(Arg->getType()))
        mergeFacts(Result, eval(A, S, Arg));
    return Result.empty() ? unknown() : Result;
  }
  if (api::isScriptModuleLoad(FD))
    return loadedModule(A, S, Call);
  if (!api::torchFunctionName(FD).empty()) {
    QualType Returned = Call->getType();
    if (!api::isTensor(Returned) && !api::isTensorSequence(Returned) &&
        !api::isTensorTuple(Returned) && !api::isPackedSequence(Returned))
      return unknown();
    OperationResult Result;
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      const Expr *Arg = Call->getArg(I);
      // An argument that must be on the CPU (a packed sequence's lengths)
      // does not say where the result is.
      if (api::needsCpuArgument(FD, I))
        continue;
      if (api::isTensor(Arg->getType()) ||
          api::isTensorSequence(Arg->getType()) ||
          api::isPackedSequence(Arg->getType()))
        Result.addOperand(eval(A, S, Arg));
    }
    return Result.empty() ? unknown() : withPinned(Result.result(), false);
  }
  if (const FunctionDecl *Callee = definitionOf(FD)) {
    if (Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
      return calleeReturn(A, S, Callee, parameterArgs(Call, Callee));
  } else if (std::optional<FactSet> Returned =
                 importedReturn(A, S, Call, FD, parameterArgs(Call, FD))) {
    return *Returned;
  }
  return unknown();
}

FactSet DeviceFlow::moduleOutput(Analysis &A, const State &S,
                                 const CallExpr *Call) {
  const Expr *Object = api::calledModule(Call);
  FactSet Module = eval(A, S, Object);
  const CXXRecordDecl *Impl = api::moduleClassOf(Object->getType());
  if (Module.empty() || allUnknown(Module) || api::isParameterFree(Impl)) {
    // Without parameters of a known device, a module computes where its
    // inputs are, as an operation does.
    OperationResult Inputs;
    for (unsigned I = api::moduleInputIndex(Call); I < Call->getNumArgs(); ++I)
      if (api::carriesTensors(Call->getArg(I)->getType()))
        Inputs.addOperand(eval(A, S, Call->getArg(I)));
    if (Inputs.empty())
      return unknown();
    FactSet Result = Inputs.result();
    // A loaded TorchScript module of unknown device runs where its inputs
    // are (or fails): what it gives back is still a module's result.
    if (api::isScriptModuleClass(Impl))
      return relabel(std::move(Result), Provenance::ModuleOutput, Call);
    return Result;
  }
  return relabel(Module, Provenance::ModuleOutput, Call);
}

namespace {
/// The constructor's own move of the module it builds (`this->to(device)`,
/// `to(device)`), if it has one; Always tells whether it is a statement of
/// the body itself, which every construction runs.
const CXXMemberCallExpr *selfMove(const CXXConstructorDecl *Ctor,
                                  bool &Always) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
      const Expr *Object = Call->getImplicitObjectArgument();
      if (api::isModuleTo(Call->getMethodDecl()) && Object &&
          isa<CXXThisExpr>(Object->IgnoreParenImpCasts()) &&
          Call->getNumArgs() >= 1 &&
          api::isDeviceLike(Call->getArg(0)->getType()))
        Found = Call;
      return !Found;
    }
    bool TraverseLambdaExpr(LambdaExpr *) { return true; }
    const CXXMemberCallExpr *Found = nullptr;
  } Search;
  const FunctionDecl *Body = nullptr;
  if (Ctor && Ctor->hasBody(Body))
    Search.TraverseStmt(Body->getBody());
  Always = false;
  if (const auto *Block =
          dyn_cast_or_null<CompoundStmt>(Body ? Body->getBody() : nullptr))
    for (const Stmt *Statement : Block->body())
      if (const auto *E = dyn_cast<Expr>(Statement))
        Always |= api::ignoreWrappers(E) == Search.Found;
  return Search.Found;
}
} // namespace

FactSet DeviceFlow::builtModule(QualType T, const CXXConstructorDecl *Called,
                                const Stmt *Origin, const Decl *OriginDecl) {
  DeviceFact Created;
  Created.Kind = DeviceKind::CPU;
  Created.How = Provenance::ModuleCreated;
  Created.Origin = Origin;
  Created.OriginDecl = OriginDecl;
  const CXXRecordDecl *Impl = api::moduleClassOf(T);
  const CXXRecordDecl *Class = Impl ? Impl->getDefinition() : nullptr;
  if (!Class || Depth > MaxDepth)
    return FactSet{Created};
  // The constructor called; for a holder (TORCH_MODULE, make_shared), which
  // forwards its arguments, every constructor of the class.
  llvm::SmallVector<const CXXConstructorDecl *, 2> Ctors;
  if (Called &&
      Called->getParent()->getCanonicalDecl() == Class->getCanonicalDecl())
    Ctors.push_back(Called);
  else
    for (const CXXConstructorDecl *Ctor : Class->ctors())
      if (!Ctor->isCopyOrMoveConstructor() && Ctor->isUserProvided())
        Ctors.push_back(Ctor);
  FactSet Result;
  bool AnyMove = false;
  for (const CXXConstructorDecl *Ctor : Ctors) {
    bool Always = false;
    const CXXMemberCallExpr *Move = selfMove(Ctor, Always);
    AnyMove |= Move != nullptr;
    // Moved by some constructions only: where is not known.
    if (!Move || !Always) {
      mergeFacts(Result, unknown());
      continue;
    }
    Analysis *A = standalone(Ctor);
    std::optional<State> At =
        A ? stateBefore(*A, Move) : std::optional<State>();
    if (!At) {
      mergeFacts(Result, unknown());
      continue;
    }
    mergeFacts(Result, relabel(evalDevice(*A, *At, Move->getArg(0)),
                               Provenance::ModuleMoved, Move, Move->getArg(0)));
  }
  return AnyMove ? Result : FactSet{Created};
}

FactSet DeviceFlow::loadedModule(Analysis &A, const State &S,
                                 const CallExpr *Call) {
  for (unsigned I = 1; I < Call->getNumArgs(); ++I) {
    const Expr *Arg = Call->getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg))
      break;
    if (api::isDeviceLike(Arg->getType()) ||
        api::isOptionalDevice(Arg->getType()))
      return relabel(evalDevice(A, S, Arg), Provenance::ModuleLoaded, Call,
                     Arg);
  }
  return unknown();
}

std::optional<FactSet> DeviceFlow::evalAggregate(Analysis &A, const State &S,
                                                 const Expr *E) {
  llvm::SmallVector<const Expr *, 4> Parts;
  if (const auto *Std = dyn_cast<CXXStdInitializerListExpr>(E))
    E = api::ignoreWrappers(Std->getSubExpr());
  if (const auto *List = dyn_cast<InitListExpr>(E)) {
    Parts.append(List->inits().begin(), List->inits().end());
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    for (const Expr *Arg : Construct->arguments()) {
      const Expr *Bare = api::ignoreWrappers(Arg);
      if (isTracked(Arg->getType()) || isa<InitListExpr>(Bare) ||
          isa<CXXStdInitializerListExpr>(Bare))
        Parts.push_back(Arg);
    }
    // An empty sequence, or n undefined tensors: no device yet.
    if (Parts.empty())
      return FactSet();
  } else {
    return std::nullopt;
  }
  FactSet Result;
  for (const Expr *Part : Parts) {
    const Expr *Bare = api::ignoreWrappers(Part);
    if (isa<InitListExpr>(Bare) || isa<CXXStdInitializerListExpr>(Bare)) {
      if (std::optional<FactSet> Nested = evalAggregate(A, S, Bare))
        mergeFacts(Result, *Nested);
    } else if (isTracked(Part->getType())) {
      mergeFacts(Result, eval(A, S, Part));
    }
  }
  return Result;
}

FactSet DeviceFlow::calleeReturn(Analysis &A, const State &S,
                                 const FunctionDecl *Callee,
                                 llvm::ArrayRef<const Expr *> Args) {
  if (Depth > MaxDepth)
    return unknown();
  Bindings Arguments;
  for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
    const ParmVarDecl *Param = Callee->getParamDecl(I);
    if (!isTracked(Param->getType()))
      Arguments.push_back(FactSet());
    else if (I < Args.size())
      Arguments.push_back(eval(A, S, Args[I]));
    else if (Param->hasDefaultArg() && !Param->hasUnparsedDefaultArg() &&
             !Param->hasUninstantiatedDefaultArg())
      Arguments.push_back(eval(A, State(), Param->getDefaultArg()));
    else
      Arguments.push_back(unknown());
  }
  Analysis *C = analyze(Callee, Arguments);
  if (!C)
    return unknown();
  return returnedFacts(*C);
}

FactSet DeviceFlow::returnedFacts(Analysis &C) {
  FactSet Result;
  for (const CFGBlock *Block : *C.Cfg->Graph) {
    if (!C.Solved->reaches(Block->getBlockID()))
      continue;
    for (const CFGElement &Element : *Block) {
      std::optional<CFGStmt> Statement = Element.getAs<CFGStmt>();
      const auto *Return =
          Statement ? dyn_cast<ReturnStmt>(Statement->getStmt()) : nullptr;
      if (!Return || !Return->getRetValue())
        continue;
      std::optional<State> At = stateBefore(C, Return);
      if (At)
        mergeFacts(Result, eval(C, *At, Return->getRetValue()));
    }
  }
  return Result;
}

//===----------------------------------------------------------------------===//
// Values that enter a function from outside
//===----------------------------------------------------------------------===//

FactSet DeviceFlow::paramFacts(const ParmVarDecl *Param) {
  auto Cached = ParamCache.find(Param);
  if (Cached != ParamCache.end())
    return Cached->second;
  const auto *FD = dyn_cast<FunctionDecl>(Param->getDeclContext());
  std::optional<llvm::ArrayRef<CallSite>> Sites =
      FD ? Index.callSites(FD) : std::nullopt;
  std::optional<FactSet> Imported =
      Sites ? importedCallerFacts(Param) : std::nullopt;
  if (Sites && Sites->empty() && Imported)
    return ParamCache[Param] = *Imported;
  if (!Sites || Sites->empty()) {
    // A device its callers choose: with a GPU, it is one on some run. Not
    // for a function of a header, which the units that include it call: the
    // one whose calls are seen tells its device.
    QualType T = api::bareType(Param->getType());
    if (On == Machine::WithGpu && (api::isDevice(T) || api::isDeviceType(T)) &&
        Ctx.getSourceManager().isInMainFile(FD->getLocation())) {
      return ParamCache[Param] = FactSet{chosenByCaller(Param)};
    }
    return ParamCache[Param] = unknown();
  }
  unsigned Index = Param->getFunctionScopeIndex();
  FactSet Result;
  for (const CallSite &Site : *Sites) {
    Analysis *Caller = Site.Caller ? standalone(Site.Caller) : nullptr;
    if (!Caller) {
      mergeFacts(Result, unknown());
      continue;
    }
    std::optional<State> At = stateBefore(*Caller, Site.Call);
    if (!At)
      continue; // the call does not happen with a GPU present
    llvm::SmallVector<const Expr *, 4> Args;
    if (const auto *Call = dyn_cast<CallExpr>(Site.Call))
      Args = parameterArgs(Call, FD);
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Site.Call))
      Args.assign(Construct->arg_begin(), Construct->arg_end());
    if (Index < Args.size())
      mergeFacts(Result, eval(*Caller, *At, Args[Index]));
    else if (Param->hasDefaultArg() && !Param->hasUnparsedDefaultArg() &&
             !Param->hasUninstantiatedDefaultArg())
      mergeFacts(Result, eval(*Caller, State(), Param->getDefaultArg()));
    else
      mergeFacts(Result, unknown());
  }
  if (Imported)
    mergeFacts(Result, *Imported);
  if (FieldsInProgress.empty())
    ParamCache[Param] = Result;
  return Result;
}

namespace {
/// Whether a method may change a member: assigns it, moves it (a module's
/// to()), or hands it to a function.
class MemberChangeFinder : public RecursiveASTVisitor<MemberChangeFinder> {
public:
  explicit MemberChangeFinder(const FieldDecl *Field) : Field(Field) {}

  bool VisitBinaryOperator(BinaryOperator *Op) {
    if (Op->isAssignmentOp() && names(Op->getLHS()))
      Found = true;
    return !Found;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->isAssignmentOp() && Op->getNumArgs() >= 1 && names(Op->getArg(0)))
      Found = true;
    return !Found;
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      if (api::isModuleTo(Member->getMethodDecl()) &&
          names(api::withoutArrow(Member->getImplicitObjectArgument())))
        Found = true;
    // Running the module (model_->forward, model_(x)) does not change it;
    // handing it to a function of the program may.
    if (isa<CXXOperatorCallExpr>(Call))
      return !Found;
    const FunctionDecl *Callee = Call->getDirectCallee();
    for (unsigned I = 0; I < Call->getNumArgs(); ++I)
      if (names(Call->getArg(I)) && mayWrite(Callee, I))
        Found = true;
    return !Found;
  }

  bool Found = false;

private:
  /// A member handed by value or by const reference is read, not changed
  /// (`module->to(device_)`, `x.to(device_)`); an unknown callee may
  /// change it.
  static bool mayWrite(const FunctionDecl *Callee, unsigned Arg) {
    if (!Callee || Arg >= Callee->getNumParams())
      return true;
    QualType T = Callee->getParamDecl(Arg)->getType();
    if (!T->isReferenceType() && !T->isPointerType())
      return false;
    return !T->getPointeeType().isConstQualified();
  }
  bool names(const Expr *E) const {
    const auto *Member = dyn_cast_or_null<MemberExpr>(api::ignoreWrappers(E));
    return Member && Member->getMemberDecl() == Field &&
           isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts());
  }
  const FieldDecl *Field;
};
} // namespace

FactSet DeviceFlow::fieldFacts(const FieldDecl *Field) {
  auto Cached = Fields.find(Field);
  if (Cached != Fields.end())
    return Cached->second;
  if (FieldsInProgress.count(Field))
    return unknown();
  const CXXRecordDecl *Class = dyn_cast<CXXRecordDecl>(Field->getParent());
  // Submodules, parameters and buffers of a module move with their module.
  if (!Class || api::isModuleClass(Class))
    return Fields[Field] = unknown();

  FieldsInProgress.insert(Field);
  auto Default = [&]() -> FactSet {
    if (Field->hasInClassInitializer())
      if (const Expr *Init = Field->getInClassInitializer()) {
        Analysis None;
        return eval(None, State(), Init);
      }
    if (constructedOnCpu(Field->getType()))
      return builtModule(Field->getType(), nullptr, nullptr, Field);
    return FactSet();
  };

  // A method asked while its own analysis runs answers nothing yet: what
  // the member holds is then not final, and is not remembered.
  bool Provisional = false;
  // What the constructors leave.
  FactSet Constructed;
  bool AnyConstructor = false;
  for (const CXXConstructorDecl *Ctor : Class->ctors()) {
    if (!definitionOf(Ctor) || Ctor->isCopyOrMoveConstructor())
      continue;
    AnyConstructor = true;
    Analysis *A = standalone(Ctor);
    if (!A) {
      Provisional |= StandaloneInProgress.count(definitionOf(Ctor)) != 0;
      mergeFacts(Constructed, unknown());
      continue;
    }
    if (!A->ExitReached)
      continue;
    auto It = A->Exit.find(Field);
    mergeFacts(Constructed, It != A->Exit.end() ? It->second : Default());
  }
  if (!AnyConstructor)
    mergeFacts(Constructed, Default());

  // What other methods that change the member leave. A setup method that
  // moves the model is taken to run before the model is used, so the model
  // as constructed no longer counts then.
  FactSet Changed;
  for (const CXXMethodDecl *Method : Class->methods()) {
    const FunctionDecl *Definition = definitionOf(Method);
    if (isa<CXXConstructorDecl>(Method) || !Definition)
      continue;
    MemberChangeFinder Finder(Field);
    Finder.TraverseDecl(const_cast<FunctionDecl *>(Definition));
    if (!Finder.Found)
      continue;
    Analysis *A = standalone(Method);
    if (!A) {
      Provisional |= StandaloneInProgress.count(Definition) != 0;
      mergeFacts(Changed, unknown());
      continue;
    }
    if (!A->ExitReached)
      continue;
    auto It = A->Exit.find(Field);
    if (It != A->Exit.end())
      mergeFacts(Changed, It->second);
  }
  // A device or tensor member that a setup method sets may still hold what
  // the constructor left when it is read (the setup is optional), or not:
  // the constructed value is then only a possibility no error rests on.
  FactSet Result = Constructed;
  if (!Changed.empty()) {
    Result = Changed;
    bool Module = api::moduleClassOf(Field->getType()) != nullptr;
    for (const DeviceFact &F : Constructed)
      if (F.How != Provenance::ModuleCreated)
        mergeFacts(Result, Module ? FactSet{F} : unknown());
  }
  FieldsInProgress.erase(Field);
  if (FieldsInProgress.empty() && !Provisional)
    Fields[Field] = Result;
  return Result;
}

FactSet DeviceFlow::capturedFacts(const FunctionDecl *Lambda,
                                  const VarDecl *Var) {
  std::optional<CallSite> Origin = Index.lambdaOrigin(Lambda);
  if (!Origin || !Origin->Caller)
    return unknown();
  Analysis *Enclosing = standalone(Origin->Caller);
  if (!Enclosing)
    return unknown();
  std::optional<State> At = stateBefore(*Enclosing, Origin->Call);
  if (!At)
    return FactSet();
  return evalDeclRef(*Enclosing, *At, Var);
}

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

std::optional<FactSet>
DeviceFlow::importedReturn(Analysis &A, const State &S, const CallExpr *Call,
                           const FunctionDecl *Callee,
                           llvm::ArrayRef<const Expr *> Args) {
  if (!isTracked(Call->getType()) ||
      !Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
    return std::nullopt;
  std::optional<std::string> Name = linkName(Callee);
  if (!Name)
    return std::nullopt;
  AskedReturns.insert(*Name);
  if (!Imports)
    return std::nullopt;
  auto It = Imports->Returns.find(*Name);
  if (It == Imports->Returns.end())
    return std::nullopt;
  FactSet Result;
  for (unsigned Position : It->second.FromParameters)
    mergeFacts(Result, Position < Args.size()
                           ? withPinned(eval(A, S, Args[Position]), false)
                           : unknown());
  FactSet Own;
  for (const RemoteFact &R : It->second.Facts) {
    DeviceFact F = fromRemote(R);
    if (F.isKnown())
      F.Origin = Call;
    Own.push_back(F);
  }
  sortFacts(Own);
  mergeFacts(Result, Own);
  return Result.empty() ? unknown() : Result;
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
    if (!isTracked(FD->getReturnType()))
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
    for (const DeviceFact &F : returnedFacts(*C)) {
      if (isParameterMarker(F))
        Returned.FromParameters.insert(
            static_cast<unsigned>(F.Index - ParameterMarker));
      else
        Returned.Facts.push_back(toRemote(F));
    }
    mergeRemoteFacts(Returned.Facts, {});
    bool Informative = !Returned.FromParameters.empty() ||
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
