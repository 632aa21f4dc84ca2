//===--- DeviceFlowCalls.cpp - Values of calls, modules and returns
//---------===//
//
// What a call gives: tensors a value carries, calls of libtorch and of the
// program's functions, module outputs, built and loaded modules, aggregates
// and what a function returns.
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
  if (std::optional<FactSet> Returned =
          programCallReturn(A, S, Call, FD, /*AskOtherUnits=*/true))
    return *Returned;
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
    // Defined in another unit and handed a device: where it puts the
    // module, or the tensors it makes, is that unit's to tell.
    if (!Ctor->hasBody() &&
        llvm::any_of(Ctor->parameters(), [](const ParmVarDecl *Param) {
          return api::isDeviceLike(Param->getType());
        })) {
      AnyMove = true;
      mergeFacts(Result, unknown());
      continue;
    }
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

std::optional<FactSet>
DeviceFlow::programCallReturn(Analysis &A, const State &S, const CallExpr *Call,
                              const FunctionDecl *Declared,
                              bool AskOtherUnits) {
  if (!Declared)
    return std::nullopt; // a call through a pointer to a member
  if (const FunctionDecl *Callee = definitionOf(Declared)) {
    if (!Code.isAnalyzed(Callee->getLocation(), Ctx.getSourceManager()))
      return std::nullopt;
    return calleeReturn(A, S, Callee, parameterArgs(Call, Callee));
  }
  if (!AskOtherUnits)
    return std::nullopt;
  return importedReturn(A, S, Call, Declared, parameterArgs(Call, Declared));
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
} // namespace torchlint
