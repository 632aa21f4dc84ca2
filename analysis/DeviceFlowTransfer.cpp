//===--- DeviceFlowTransfer.cpp - How statements change where values live
//---===//
//
// The transfer function of the device flow: declarations, assignments,
// moves, in-place operations, calls that may change their arguments.
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
      // outputs[i] = t, outputs.at(i) = t, std::get<0>(batch) = t: an
      // element of a sequence or a tuple.
      const Expr *Target = api::ignoreWrappers(Op->getArg(0));
      const Expr *Element = nullptr;
      if (const auto *Access = dyn_cast<CXXMemberCallExpr>(Target))
        Element = Access->getImplicitObjectArgument();
      else if (const auto *Index = dyn_cast<CXXOperatorCallExpr>(Target);
               Index && Index->getOperator() == OO_Subscript)
        Element = Index->getArg(0);
      else if (const auto *Get = dyn_cast<CallExpr>(Target);
               Get && api::isTupleGet(Get) && Get->getNumArgs() == 1)
        Element = Get->getArg(0);
      if (Element && (api::isTensorSequence(Element->getType()) ||
                      api::isTensorTuple(Element->getType()) ||
                      isStandardContainerOfTensors(Element->getType()))) {
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
    // inputs.push_back(t), outputs.emplace_back(t), losses.emplace("l1", t)
    if (QualType Held = Member->getImplicitObjectArgument()->getType();
        api::isTensorSequence(Held) || isStandardContainerOfTensors(Held)) {
      llvm::StringRef Name =
          MD && MD->getIdentifier() ? MD->getName() : llvm::StringRef();
      if (Name == "push_back" || Name == "emplace_back" || Name == "insert" ||
          Name == "emplace" || Name == "push_front" ||
          Name == "emplace_front" || Name == "try_emplace" ||
          Name == "insert_or_assign") {
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
    const ParmVarDecl *Param = Callee->getParamDecl(I);
    if (!isFilledThrough(Param))
      continue;
    // What the unit that defines it says the call leaves there.
    if (std::optional<FactSet> Filled =
            importedFill(A, S, Callee, I, Args[I])) {
      if (Storage Target = storageOf(A, Args[I], /*Create=*/true))
        assign(S, Target, std::move(*Filled));
      continue;
    }
    QualType T = Param->getType();
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
} // namespace torchlint
