//===--- DeviceFlowEval.cpp - Where an expression's value lives
//-------------===//
//
// Evaluation of devices, options and tensors: literals, variables, members,
// operators and the tensor methods that move or make values. Calls into the
// program's own functions and module construction are in DeviceFlowCalls.cpp.
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

//===----------------------------------------------------------------------===//
// Evaluating expressions
//===----------------------------------------------------------------------===//

namespace {
/// Bounds the recursion of expression evaluation, whatever the input.
/// One level of the evaluators' recursion: E is seen without its wrappers,
/// and past a bounded nesting (or without an expression) they give up.
class EvalScope {
public:
  EvalScope(unsigned &Depth, const Expr *&E) : Depth(Depth) {
    ++Depth;
    E = api::ignoreWrappers(E);
  }
  ~EvalScope() { --Depth; }
  bool givesUp(const Expr *E) const { return Depth > 256 || !E; }

private:
  unsigned &Depth;
};

/// Facts read from the device variable Symbol: two values that read it are
/// on the same device, whichever that is.
FactSet readFrom(FactSet Facts, const ValueDecl *Symbol) {
  for (DeviceFact &F : Facts)
    if (F.isKnown() && !F.Symbol)
      F.Symbol = Symbol;
  sortFacts(Facts);
  return Facts;
}
} // namespace

FactSet DeviceFlow::evalDevice(Analysis &A, const State &S, const Expr *E) {
  EvalScope Scope(EvalNesting, E);
  if (Scope.givesUp(E))
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
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return readFrom(evalDeclRef(A, S, Ref->getDecl()), Ref->getDecl());
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    if (!isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
      return memberDeviceOfObject(A, S, Member);
    // A device kept in a member: this->device_.
    return readFrom(evalDeclRef(A, S, Member->getMemberDecl()),
                    Member->getMemberDecl());
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
  // *device_ptr: the device it points to, one choice wherever it is read.
  const Expr *Pointer = nullptr;
  if (const auto *Star = dyn_cast<CXXOperatorCallExpr>(E);
      Star && Star->getOperator() == OO_Star && Star->getNumArgs() == 1)
    Pointer = Star->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Deref = dyn_cast<UnaryOperator>(E);
      Deref && Deref->getOpcode() == UO_Deref)
    Pointer = Deref->getSubExpr()->IgnoreParenImpCasts();
  if (Pointer && api::isDevicePointer(Pointer->getType())) {
    const ValueDecl *Symbol = nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Pointer))
      Symbol = Ref->getDecl();
    else if (const auto *Member = dyn_cast<MemberExpr>(Pointer))
      Symbol = Member->getMemberDecl();
    return readFrom(evalDevicePointer(A, S, Pointer), Symbol);
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (std::optional<FactSet> Returned =
            programCallReturn(A, S, Call, Call->getDirectCallee(),
                              /*AskOtherUnits=*/false))
      return *Returned;
  return unknown();
}

FactSet DeviceFlow::evalDevicePointer(Analysis &A, const State &S,
                                      const Expr *E) {
  EvalScope Scope(EvalNesting, E);
  if (Scope.givesUp(E))
    return unknown();
  E = api::ignoreWrappers(E);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return evalDeclRef(A, S, Ref->getDecl());
  if (const auto *Member = dyn_cast<MemberExpr>(E);
      Member && isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
    return evalDeclRef(A, S, Member->getMemberDecl());
  if (const auto *Address = dyn_cast<UnaryOperator>(E);
      Address && Address->getOpcode() == UO_AddrOf)
    return evalDevice(A, S, Address->getSubExpr());
  if (const auto *New = dyn_cast<CXXNewExpr>(E))
    return New->getInitializer() ? evalDevice(A, S, New->getInitializer())
                                 : unknown();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 1 ? eval(A, S, Construct->getArg(0))
                                        : unknown();
  // std::make_shared<torch::Device>(args): the device those arguments make.
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (FD && FD->isInStdNamespace() && FD->getIdentifier() &&
        (FD->getName() == "make_shared" || FD->getName() == "make_unique") &&
        Call->getNumArgs() >= 1 &&
        api::isDeviceLike(Call->getArg(0)->getType()))
      return evalDevice(A, S, Call->getArg(0));
    if (std::optional<FactSet> Returned =
            programCallReturn(A, S, Call, FD, /*AskOtherUnits=*/false))
      return *Returned;
  }
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
  EvalScope Scope(EvalNesting, E);
  if (Scope.givesUp(E))
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
    // t.options(): where the tensor lives, whatever expression it is.
    if (api::isTensorMethod(MD, "options"))
      return eval(A, S, Member->getImplicitObjectArgument());
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
    if (std::optional<FactSet> Returned =
            programCallReturn(A, S, Call, FD, /*AskOtherUnits=*/false))
      return *Returned;
  }
  return unknown();
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
  return readFrom(assignedGlobalFacts(Global, Field, std::move(Initial)),
                  Field);
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
  // A range-for's hidden `__begin1`, or an iterator the program declares
  // (`for (auto it = losses.begin(); ...)`, `auto it = meters.find(k)`).
  const Expr *Begin = api::ignoreWrappers(InitOf(Iterator));
  if (!Begin) {
    const auto *Ref =
        dyn_cast_or_null<DeclRefExpr>(api::ignoreWrappers(Iterator));
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    const auto *Init = Var && Var->isLocalVarDecl()
                           ? dyn_cast_or_null<CXXMemberCallExpr>(
                                 api::ignoreWrappers(Var->getInit()))
                           : nullptr;
    const CXXMethodDecl *MD = Init ? Init->getMethodDecl() : nullptr;
    static const llvm::StringRef Positions[] = {
        "begin", "cbegin",      "rbegin",     "crbegin",
        "find",  "lower_bound", "upper_bound"};
    if (MD && MD->getIdentifier() && MD->getParent()->isInStdNamespace() &&
        llvm::is_contained(Positions, MD->getName()))
      Begin = Init;
  }
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
  return api::carriesTensors(Range->getType()) ||
                 api::isTensorCarrier(Range->getType())
             ? Range
             : nullptr;
}
} // namespace

FactSet DeviceFlow::tensorsOfModule(Analysis &A, const State &S,
                                    const Expr *Module) {
  // Where the module is several devices (or one, and unknown on some paths),
  // what is read off a module moved on some paths only
  // (`torch::randn(n, model->parameters()[0].device())`) goes where the
  // module went, which separate facts cannot say: each is then a run-time
  // choice, the GPU for the opportunity rules and the ground of no error.
  FactSet Facts = eval(A, S, Module);
  llvm::SmallSet<int, 2> Kinds;
  for (const DeviceFact &F : Facts)
    Kinds.insert(F.isKnown() ? static_cast<int>(F.Kind) : -1);
  if (Facts.empty() || (Kinds.size() == 1 && Kinds.count(-1)))
    return unknown();
  if (Kinds.size() > 1)
    for (DeviceFact &F : Facts)
      F.RunTimeChoice = true;
  return Facts;
}

FactSet DeviceFlow::eval(Analysis &A, const State &S, const Expr *E) {
  EvalScope Scope(EvalNesting, E);
  if (Scope.givesUp(E))
    return unknown();
  QualType T = E->getType();
  if (api::isDevice(T) || api::isDeviceType(T) || api::isOptionalDevice(T))
    return evalDevice(A, S, E);
  if (api::isTensorOptions(T))
    return evalOptions(A, S, E);
  if (api::isDevicePointer(T))
    return evalDevicePointer(A, S, E);

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
    // batch.fields, result->scores: a tensor the object carries; entry.second
    // of a map's element, it->second.
    QualType Object = Base->getType()->isPointerType()
                          ? Base->getType()->getPointeeType()
                          : Base->getType();
    if (api::isTensorCarrier(Object) || api::isTensorTuple(Object))
      return eval(A, S, Base);
    // model->fc->weight, model->encoder: a parameter, buffer or submodule
    // of a module object is where that module is.
    // A tensor it never registers stays where its class puts it.
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
        Field && api::moduleClassOf(Base->getType()))
      return api::movesWithItsModule(Field) ? tensorsOfModule(A, S, Base)
             : api::isTensor(Field->getType()) ? fieldFacts(Field)
                                               : unknown();
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
    // is.
    if (const Expr *Owner = api::parametersOwner(Member);
        Owner && api::isTensorSequence(Member->getType()))
      return tensorsOfModule(A, S, Owner);
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
    if (std::optional<FactSet> Returned =
            programCallReturn(A, S, Member, MD, /*AskOtherUnits=*/true))
      return *Returned;
    return unknown();
  }

  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    OverloadedOperatorKind Kind = Op->getOperator();
    if (Kind == OO_Call && api::isModuleCall(Op))
      return moduleOutput(A, S, Op);
    if (Kind == OO_Arrow && Op->getNumArgs() >= 1) {
      if (const Expr *Range = rangeOfLoopIterator(Op->getArg(0)))
        return eval(A, S, Range);
      return eval(A, S, Op->getArg(0));
    }
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
    // An operator of the program, perhaps defined in another unit: a loss's
    // operator().
    if (std::optional<FactSet> Returned = programCallReturn(
            A, S, Op, Op->getDirectCallee(), /*AskOtherUnits=*/true))
      return *Returned;
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
    // std::map<std::string, torch::Tensor> losses;: no tensor, no device yet.
    if (Construct->getNumArgs() == 0 && isStandardContainerOfTensors(T))
      return FactSet();
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
} // namespace torchlint
