#include "rules/CudnnBenchmarkOffCheck.h"

#include "common/Scenarios.h"

#include "analysis/DeviceFlow.h"
#include "analysis/EnclosingBlocks.h"
#include "analysis/Loops.h"
#include "analysis/ModuleLayers.h"
#include "analysis/StepContext.h"
#include "core/UserCode.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <functional>

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo CudnnBenchmarkOffCheck::Info = {
    "torch-cudnn-benchmark-off",
    "CudnnBenchmarkOff",
    "convolutions run on the GPU with cuDNN's autotuner off",
    Level::Note,
    /*OffersFixIts=*/true,
    "performance,gpu,libtorch",
    "medium",
};

namespace {
/// A size argument reads a variable that is declared inside the loop that
/// runs the call: the loop counter, or a value computed per iteration. A
/// size read off a tensor (`batch.data.size(0)`) is a shape the loop has
/// already: labels or noise made to match a batch bring no new one.
bool sizeChangesPerIteration(const Expr *Size, const Stmt *Loop,
                             const SourceManager &SM) {
  if (!Size)
    return false;
  if (const auto *Read = dyn_cast<CXXMemberCallExpr>(Size);
      Read && api::isTensorMethod(Read->getMethodDecl()) &&
      Read->getMethodDecl()->getIdentifier() &&
      llvm::is_contained({"size", "sizes", "sym_size", "sym_sizes"},
                         Read->getMethodDecl()->getName()))
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Size)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && Var->isLocalVarDeclOrParm() && !isa<ParmVarDecl>(Var) &&
        !Var->getType().isConstQualified() &&
        SM.isPointWithin(Var->getLocation(), Loop->getBeginLoc(),
                         Loop->getEndLoc()))
      return true;
  }
  for (const Stmt *Child : Size->children())
    if (sizeChangesPerIteration(dyn_cast_or_null<Expr>(Child), Loop, SM))
      return true;
  return false;
}

constexpr llvm::StringLiteral Enable =
    "at::globalContext().setBenchmarkCuDNN(true);";
} // namespace

void CudnnBenchmarkOffCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      cxxMemberCallExpr(callee(cxxMethodDecl(hasName("to")))).bind("moved"),
      this);
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName("randn", "rand", "zeros", "ones",
                                              "empty", "full", "randint"))))
          .bind("sized"),
      this);
  Finder->addMatcher(cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName(
                                           "view", "reshape", "narrow", "slice",
                                           "resize_", "expand"))))
                         .bind("sized"),
                     this);
  matchers::matchModuleCalls(Finder, this);
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasName("::torch::jit::load"))))
          .bind("load"),
      this);
}

namespace {
/// The module a move or a load puts on a device, and the device argument.
std::pair<const Expr *, const Expr *> movedModule(const CallExpr *Moved) {
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Moved))
    return {api::withoutArrow(Member->getImplicitObjectArgument()),
            Member->getArg(0)};
  for (unsigned I = 1; I < Moved->getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(Moved->getArg(I)) &&
        (api::isDeviceLike(Moved->getArg(I)->getType()) ||
         api::isOptionalDevice(Moved->getArg(I)->getType())))
      return {Moved, Moved->getArg(I)};
  return {Moved, nullptr};
}

/// A TorchScript module: its layers are in the file it is loaded from.
bool isScriptModule(const Expr *Module) {
  return api::isScriptModuleClass(api::moduleClassOf(Module->getType()));
}

/// The local variable that holds the module Moved moves or loads.
const VarDecl *moduleVariable(const CallExpr *Moved, const Expr *Module,
                              ASTContext &Ctx) {
  if (isa<CXXMemberCallExpr>(Moved)) {
    const auto *Ref = dyn_cast<DeclRefExpr>(Module->IgnoreParenImpCasts());
    return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  }
  // torch::jit::load(path, device) initializes or assigns a variable.
  DynTypedNode Node = DynTypedNode::create(*Moved);
  for (unsigned Steps = 0; Steps < 8; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return nullptr;
    Node = Parents[0];
    if (const auto *Var = Node.get<VarDecl>())
      return Var;
    if (const auto *Assign = Node.get<CXXOperatorCallExpr>();
        Assign && Assign->getOperator() == OO_Equal) {
      const auto *Ref =
          dyn_cast<DeclRefExpr>(Assign->getArg(0)->IgnoreParenImpCasts());
      return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    }
    if (!Node.get<Expr>())
      return nullptr;
  }
  return nullptr;
}

/// Whether E names Var, through parentheses, conversions and `->`.
bool names(const Expr *E, const VarDecl *Var) {
  const auto *Ref =
      E ? dyn_cast<DeclRefExpr>(api::withoutArrow(E->IgnoreParenImpCasts())
                                    ->IgnoreParenImpCasts())
        : nullptr;
  return Ref && Ref->getDecl() == Var;
}

/// Module is a local of `main`, runs there only, and never in a loop that
/// repeats: one inference, or a smoke test that stops after its first batch.
/// Tuning cuDNN's algorithms costs a timing run per shape and pays back only
/// over repeated convolutions. A module handed to a function of the program,
/// or used in a lambda, may run repeatedly there.
bool runsOnceInMain(const VarDecl *Module, ASTContext &Ctx,
                    const UserCode &Code) {
  const auto *Main =
      Module ? dyn_cast<FunctionDecl>(Module->getDeclContext()) : nullptr;
  if (!Main || !Main->isMain() || !Module->isLocalVarDecl() || !Main->hasBody())
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  auto RepeatsAt = [&](const Stmt *Run) {
    for (const Stmt *Loop = enclosingLoop(Run, Ctx); Loop;
         Loop = enclosingLoop(Loop, Ctx))
      if (!stopsAfterFirstPass(Loop))
        return true;
    return false;
  };
  std::function<bool(const Stmt *)> OnlyOnce = [&](const Stmt *S) {
    if (!S)
      return true;
    if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
      std::function<bool(const Stmt *)> Uses = [&](const Stmt *In) {
        if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(In))
          return Ref->getDecl() == Module;
        return In && llvm::any_of(In->children(), Uses);
      };
      return !Uses(Lambda->getBody());
    }
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      bool Users = Callee && Code.isAnalyzed(Callee->getLocation(), SM);
      const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
      // The module runs: called, or a method of the program's own on it.
      if (names(api::calledModule(Call), Module) ||
          (Users && Member &&
           names(Member->getImplicitObjectArgument(), Module)))
        if (RepeatsAt(Call))
          return false;
      if (Users && llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
            return names(Arg, Module);
          }))
        return false;
    }
    return llvm::all_of(S->children(), OnlyOnce);
  };
  return OnlyOnce(Main->getBody());
}
} // namespace

void CudnnBenchmarkOffCheck::check(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  const SourceManager &SM = Ctx->getSourceManager();
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("sized")) {
    if (VaryingSizes)
      return;
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
    if (Member ? !api::isTensorMethod(Member->getMethodDecl())
               : !api::isFactoryFunction(Call->getDirectCallee()))
      return;
    const Stmt *Loop = enclosingLoop(Call, *Ctx);
    if (!Loop)
      return;
    for (const Expr *Arg : Call->arguments())
      if (!api::isTensorOptions(Arg->getType()) &&
          sizeChangesPerIteration(Arg, Loop, SM)) {
        VaryingSizes = Call;
        return;
      }
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<Expr>("module-call")) {
    const Expr *Module = api::calledModule(Call);
    if (FirstInput || !Module ||
        !context().moduleLayers(*Ctx).find(Module, isConvolutionLayer))
      return;
    FirstInput = api::moduleInput(Call);
    return;
  }
  const CallExpr *Call = Result.Nodes.getNodeAs<CallExpr>("load");
  if (const auto *Moved = Result.Nodes.getNodeAs<CXXMemberCallExpr>("moved")) {
    if (!api::isModuleTo(Moved->getMethodDecl()) || Moved->getNumArgs() < 1)
      return;
    Call = Moved;
  }
  DeviceFlow &Flow = context().deviceFlow(*Ctx);
  auto [Module, Device] = movedModule(Call);
  if (!Device || !Flow.reachable(Call))
    return;
  // A TorchScript module's layers are not in the program: one moved to a
  // GPU is taken to convolve (deployments run detectors, segmenters and
  // stereo nets); the message says so, and the fix costs nothing where it
  // does not.
  if (!isScriptModule(Module) &&
      !context().moduleLayers(*Ctx).find(Module, isConvolutionLayer))
    return;
  if (runsOnceInMain(moduleVariable(Call, Module, *Ctx), *Ctx,
                     context().userCode()))
    return;
  for (const DeviceFact &F : Flow.devicesOf(Device))
    if (F.Kind == api::DeviceKind::CUDA) {
      const void *Choice = F.Symbol ? static_cast<const void *>(F.Symbol)
                                    : Flow.index().enclosingFunction(Call);
      if (Choices.insert(Choice).second)
        Moves.push_back(Call);
      return;
    }
}

void CudnnBenchmarkOffCheck::onEndOfTranslationUnit() {
  // The setting is the program's: any unit of it may make it.
  if (!VaryingSizes && Ctx && !Moves.empty() &&
      context().stepContext(*Ctx).programDecidesCudnnBenchmark() != true)
    for (const CallExpr *Moved : Moves)
      reportAt(Moved);
  Moves.clear();
  Choices.clear();
  FirstInput = nullptr;
  VaryingSizes = nullptr;
}

void CudnnBenchmarkOffCheck::reportAt(const CallExpr *Moved) {
  ASTContext &Ctx = *this->Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  auto [Module, Device] = movedModule(Moved);
  FactSet Devices = Flow.devicesOf(Device);
  std::string Name = isa<CXXMemberCallExpr>(Moved)
                         ? quoted(Module, Ctx, "a module")
                         : std::string("the loaded module");
  FindingBuilder Finding = report(
      Ctx, Moved->getSourceRange(),
      isScriptModule(Module)
          ? Name +
                " is a TorchScript module run on the GPU with cuDNN's "
                "autotuner off" +
                runTimeCondition(Devices) +
                ", so the convolutions it holds (its layers are in the file) "
                "get algorithms picked by heuristics instead of the fastest "
                "for each input shape"
          : Name + " runs convolutions on the GPU with cuDNN's autotuner off" +
                runTimeCondition(Devices) +
                ", so cuDNN picks its algorithms by heuristics instead of "
                "timing the fastest for each input shape");
  Finding.remedy("call 'at::globalContext().setBenchmarkCuDNN(true)' once "
                 "after choosing the device (set it to false where "
                 "determinism matters, to say so)");
  noteRunTimeChoices(Finding, Devices);

  // Right after the device variable is declared, when it is a local of the
  // same function; else just before the move.
  const Stmt *After = nullptr;
  for (const DeviceFact &F : Devices) {
    const auto *Var = dyn_cast_or_null<VarDecl>(F.Symbol);
    if (F.Kind != api::DeviceKind::CUDA || !Var || !Var->isLocalVarDecl() ||
        Flow.index().enclosingFunction(Moved) !=
            dyn_cast<FunctionDecl>(Var->getDeclContext()))
      continue;
    DynTypedNodeList Parents = Ctx.getParents(*Var);
    const auto *Decl = Parents.empty() ? nullptr : Parents[0].get<DeclStmt>();
    if (Decl && statementInBlock(Decl, Ctx) == Decl) {
      After = Decl;
      Finding.note(Var->getSourceRange(), "the device is chosen here");
    }
    break;
  }
  if (After) {
    Finding.insertLineAfter(After->getEndLoc(),
                            indentationOf(After->getBeginLoc(), SM) +
                                Enable.str());
  } else if (const Stmt *Before = statementInBlock(Moved, Ctx);
             Before && !Before->getBeginLoc().isMacroID()) {
    Finding.insertBefore(Before->getBeginLoc(),
                         Enable.str() + "\n" +
                             indentationOf(Before->getBeginLoc(), SM));
  }

  Finding.recipe({{"scenario", scenario::CudnnBenchmarkOff},
                  {"module", recipe::describeModule(Module, nullptr, Ctx)},
                  {"input", recipe::describeInput(FirstInput, Flow, Ctx)}});
}

} // namespace torchlint
