#include "rules/CudnnDisabledCheck.h"

#include "analysis/CallsWithin.h"
#include "analysis/FunctionCfg.h"
#include "analysis/Loops.h"
#include "analysis/ModuleLayers.h"
#include "common/Scenarios.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

// The prose of the rule is its docs page, docs/rules/torch-cudnn-disabled.md.
const RuleInfo CudnnDisabledCheck::Info = {
    "torch-cudnn-disabled",
    "CudnnDisabled",
    "cuDNN is switched off while the program runs layers that use it",
    Level::Warning,
    /*OffersFixIts=*/false,
    "performance,gpu,libtorch",
    "high",
};

namespace {
/// `setUserEnabledCuDNN(Value)`: its argument's constant value, or nullopt
/// when it is no such call or the value is chosen at run time.
std::optional<bool> switchesCudnn(const Stmt *S, const ASTContext &Ctx) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(S);
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  if (!Method || !Method->getDeclName().isIdentifier() ||
      Method->getName() != "setUserEnabledCuDNN" || Call->getNumArgs() < 1 ||
      Method->getParent()->getQualifiedNameAsString() != "at::Context")
    return std::nullopt;
  return api::constantBool(Call->getArg(0), Ctx);
}

/// The functional forms of the layers cuDNN runs.
bool isCudnnFunction(const FunctionDecl *FD) {
  if (!FD || isa<CXXMethodDecl>(FD) || !FD->getDeclName().isIdentifier() ||
      !api::isInTorchNamespace(FD))
    return false;
  return llvm::StringSwitch<bool>(FD->getName())
      .Cases("conv1d", "conv2d", "conv3d", "conv_transpose1d", true)
      .Cases("conv_transpose2d", "conv_transpose3d", "batch_norm", true)
      .Cases("lstm", "gru", "rnn_tanh", "rnn_relu", true)
      .Default(false);
}

/// How deep into the program's functions the work is looked for.
constexpr unsigned MaxDepth = 2;

std::string kernelName(const NamedDecl *Kernel) {
  if (const auto *Layer = dyn_cast<CXXRecordDecl>(Kernel))
    return layerName(Layer).str();
  return Kernel->getName().str();
}
} // namespace

void CudnnDisabledCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(cxxMemberCallExpr(callee(cxxMethodDecl(
                                           hasName("setUserEnabledCuDNN"),
                                           ofClass(hasName("::at::Context")))))
                         .bind("switch"),
                     this);
}

const NamedDecl *CudnnDisabledCheck::kernelOf(const Expr *E, ASTContext &Ctx) {
  if (const Expr *Module = api::calledModule(E))
    return context().moduleLayers(Ctx).find(Module, isCudnnLayer);
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  return isCudnnFunction(Callee) ? Callee : nullptr;
}

CudnnDisabledCheck::Work CudnnDisabledCheck::cudnnWorkAfter(const Stmt *From,
                                                            ASTContext &Ctx) {
  const FunctionCfg *Cfg = context().cfgs(Ctx).of(From);
  std::optional<FunctionCfg::Place> Start =
      Cfg ? Cfg->placeOf(From, Ctx) : std::nullopt;
  if (!Start)
    return {};
  Work Found;
  Cfg->search(*Start, [&](const CFGElement &Element) {
    std::optional<CFGStmt> S = Element.getAs<CFGStmt>();
    if (!S)
      return FunctionCfg::Step::Continue;
    if (switchesCudnn(S->getStmt(), Ctx) == true)
      return FunctionCfg::Step::EndPath;
    const auto *E = dyn_cast<CallExpr>(S->getStmt());
    if (!E)
      return FunctionCfg::Step::Continue;
    const NamedDecl *Kernel = nullptr;
    findCallWithin(E, MaxDepth, context().userCode(), Ctx.getSourceManager(),
                   [&](const Expr *Inner) {
                     return (Kernel = kernelOf(Inner, Ctx)) != nullptr;
                   });
    if (!Kernel)
      return FunctionCfg::Step::Continue;
    Found = {E, Kernel};
    return FunctionCfg::Step::Found;
  });
  return Found;
}

void CudnnDisabledCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Switch = Result.Nodes.getNodeAs<CXXMemberCallExpr>("switch");
  // setUserEnabledCuDNN(flag) is a choice; switching it on is the default.
  if (switchesCudnn(Switch, Ctx) != false ||
      context().inDebugOnlyCode(Switch->getBeginLoc(),
                                Ctx.getSourceManager()) ||
      inBranch(Switch, Ctx))
    return;
  Work Found = cudnnWorkAfter(Switch, Ctx);
  // The switch is global: a function that turns cuDNN off for its callers
  // (a setup() before the model runs) is followed into them, one level.
  if (!Found.Site)
    if (const FunctionDecl *Function =
            context().unitIndex(Ctx).enclosingFunction(Switch))
      if (std::optional<llvm::ArrayRef<UnitIndex::CallSite>> Callers =
              context().unitIndex(Ctx).callSites(Function->getCanonicalDecl()))
        for (const UnitIndex::CallSite &Caller : *Callers)
          if (!inBranch(Caller.Call, Ctx) &&
              (Found = cudnnWorkAfter(Caller.Call, Ctx)).Site)
            break;
  if (!Found.Site)
    return;

  const std::string Kernel = kernelName(Found.Kernel);
  FindingBuilder Finding =
      report(Ctx, Switch->getSourceRange(),
             "cuDNN is switched off, so on a GPU the '" + Kernel +
                 "' work that runs after it falls back to libtorch's own "
                 "kernels, several times slower");
  const Expr *Module = api::calledModule(Found.Site);
  Finding.note(Found.Site->getSourceRange(),
               Module ? "'" + Kernel + "' runs here, in " +
                            quoted(Module, Ctx, "the module")
                      : "'" + Kernel + "' runs here");
  Finding.remedy("leave cuDNN on; for reproducible results use "
                 "'at::globalContext().setDeterministicCuDNN(true)' instead");
  Finding.recipe(
      {{"scenario", scenario::CudnnDisabled},
       {"layer", Kernel},
       {"module", Module ? recipe::describeModule(Module, nullptr, Ctx)
                         : nlohmann::json()}});
}

} // namespace torchlint
