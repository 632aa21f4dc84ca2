//===--- DeviceFlowInputs.cpp - Values that enter a function from outside
//---===//
//
// Parameters (from the callers in this unit and the others), fields set by
// the class's methods, globals and what a lambda captures.
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
  // A virtual method is also called through its bases, in any unit: where
  // the program's summaries tell those calls, the calls seen here add to
  // them.
  if (const auto *Method = dyn_cast_or_null<CXXMethodDecl>(FD);
      !Sites && Method && Method->isVirtual())
    if ((Imported = importedCallerFacts(Param)))
      Sites = Index.seenCalls(FD);
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
  // Submodules, parameters and buffers of a module move with their module;
  // a tensor it never registers stays where its class puts it.
  if (!Class || (api::isModuleClass(Class) &&
                 !(api::isTensor(Field->getType()) &&
                   !api::movesWithItsModule(Field))))
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
} // namespace torchlint
