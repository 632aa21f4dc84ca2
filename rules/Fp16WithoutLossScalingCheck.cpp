#include "rules/Fp16WithoutLossScalingCheck.h"

#include "common/Scenarios.h"

#include "analysis/AutocastFlow.h"
#include "analysis/DeviceFlow.h"
#include "analysis/EnclosingBlocks.h"
#include "analysis/FunctionCfg.h"
#include "analysis/Loops.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

using autocast::Action;
using autocast::AutocastCall;

const RuleInfo Fp16WithoutLossScalingCheck::Info = {
    "torch-fp16-without-loss-scaling",
    "Fp16WithoutLossScaling",
    "a training loop computes in float16 autocast without scaling the loss",
    Level::Warning,
    /*OffersFixIts=*/true,
    "correctness,mixed-precision,gpu,libtorch",
    "high",
};

namespace {
bool isCuda(const AutocastCall &Read) {
  return Read.Device == api::DeviceKind::CUDA;
}

/// An expression that multiplies: `loss * scale`, `loss.mul(scale)`.
class ProductFinder : public RecursiveASTVisitor<ProductFinder> {
public:
  bool VisitBinaryOperator(BinaryOperator *Op) {
    Found |= Op->getOpcode() == BO_Mul || Op->getOpcode() == BO_MulAssign;
    return !Found;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    Found |= (Op->getOperator() == OO_Star && Op->getNumArgs() == 2) ||
             Op->getOperator() == OO_StarEqual;
    return !Found;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    const CXXMethodDecl *MD = Call->getMethodDecl();
    Found |= MD && MD->getDeclName().isIdentifier() &&
             (MD->getName() == "mul" || MD->getName() == "mul_");
    return !Found;
  }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      Variables.push_back(Var);
    return true;
  }
  bool Found = false;
  std::vector<const VarDecl *> Variables;
};

/// Assignments to a variable in a function body: `loss = loss * scale;`.
class AssignmentFinder : public RecursiveASTVisitor<AssignmentFinder> {
public:
  explicit AssignmentFinder(const VarDecl *Var) : Var(Var) {}
  bool VisitBinaryOperator(BinaryOperator *Op) {
    if (Op->isAssignmentOp() && assigns(Op->getLHS()))
      Values.push_back(Op);
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->isAssignmentOp() && Op->getNumArgs() == 2 && assigns(Op->getArg(0)))
      Values.push_back(Op);
    return true;
  }
  std::vector<const Expr *> Values;

private:
  bool assigns(const Expr *LHS) const {
    const auto *Ref = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts());
    return Ref && Ref->getDecl() == Var;
  }
  const VarDecl *Var;
};

/// The loss is scaled: E, or what a variable in it was set to in Function,
/// multiplies.
bool isScaled(const Expr *E, const FunctionDecl *Function, unsigned Depth) {
  if (!E || Depth > 3)
    return false;
  ProductFinder Products;
  Products.TraverseStmt(const_cast<Expr *>(E));
  if (Products.Found)
    return true;
  for (const VarDecl *Var : Products.Variables) {
    if (!Var->isLocalVarDecl())
      continue;
    if (isScaled(Var->getInit(), Function, Depth + 1))
      return true;
    AssignmentFinder Assignments(Var);
    if (Function && Function->hasBody())
      Assignments.TraverseStmt(Function->getBody());
    for (const Expr *Value : Assignments.Values)
      if (isScaled(Value, Function, Depth + 1))
        return true;
  }
  return false;
}

/// The loss a backward call differentiates.
const Expr *lossOf(const CallExpr *Backward) {
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Backward))
    return Member->getImplicitObjectArgument();
  return Backward->getNumArgs() ? Backward->getArg(0) : nullptr;
}
} // namespace

void Fp16WithoutLossScalingCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(
          callee(functionDecl(hasAnyName(
              "set_enabled", "set_autocast_enabled", "set_autocast_gpu_dtype",
              "set_autocast_dtype", "backward", "grad", "step"))))
          .bind("call"),
      this);
  matchers::matchModuleCalls(Finder, this);
}

void Fp16WithoutLossScalingCheck::check(
    const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  DeviceFlow &Flow = context().deviceFlow(*Ctx);
  // Only the program's own functions: libtorch's headers choose nothing.
  if (const auto *Call = Result.Nodes.getNodeAs<Expr>("module-call")) {
    if (const FunctionDecl *Function = Flow.index().enclosingFunction(Call);
        Function && api::calledModule(Call))
      ModuleCalls.push_back({Call, Function});
    return;
  }
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  const FunctionDecl *Function = Flow.index().enclosingFunction(Call);
  if (!Function)
    return;
  if (std::optional<AutocastCall> Read = autocast::classify(Call, *Ctx)) {
    if (isCuda(*Read) && Read->What == Action::Enable)
      Enables.push_back({Call, Function});
    else if (Read->What == Action::SetDtype &&
             (isCuda(*Read) || Read->Device == api::DeviceKind::Unknown))
      DtypeChoices.push_back({*Read, Function});
    return;
  }
  if (api::isBackwardCall(Call))
    Backwards.push_back({Call, Function});
  else if (api::isOptimizerCall(Call))
    OptimizerSteps.push_back({Call, Function});
}

bool Fp16WithoutLossScalingCheck::trainsIn(const FunctionDecl *Function) const {
  return Function && llvm::any_of(Backwards, [&](const auto &B) {
           return B.Function == Function;
         });
}

bool Fp16WithoutLossScalingCheck::scalesLossIn(
    const FunctionDecl *Function) const {
  return llvm::any_of(Backwards, [&](const auto &B) {
    return B.Function == Function && isScaled(lossOf(B.What), Function, 0);
  });
}

const Fp16WithoutLossScalingCheck::DtypeChoice *
Fp16WithoutLossScalingCheck::choiceFor(const CallExpr *On,
                                       const FunctionDecl *Function,
                                       bool &Fp16) {
  // The choice the paths to the switch in its own function made last
  // decides; else those made elsewhere in the unit (at start-up), which must
  // all agree. A choice beside another region is taken as that region's own.
  std::optional<AutocastSetting> At =
      context().autocastFlow(*Ctx).before(On, api::DeviceKind::CUDA);
  const DtypeChoice *Local = nullptr;
  for (const DtypeChoice &Choice : DtypeChoices)
    if (At && Choice.Read.Call == At->Dtype && Choice.Function == Function)
      Local = &Choice;
  if (Local) {
    Fp16 = Local->Read.Dtype == autocast::DefaultCudaDtype;
    return Local;
  }
  const DtypeChoice *Elsewhere = nullptr;
  Fp16 = true;
  for (const DtypeChoice &Choice : DtypeChoices)
    if (Choice.Function != Function &&
        llvm::none_of(Enables, [&](const InFunction<CallExpr> &Enable) {
          return Enable.Function == Choice.Function;
        })) {
      Fp16 &= Choice.Read.Dtype == autocast::DefaultCudaDtype;
      Elsewhere = &Choice;
    }
  return Elsewhere;
}

const Expr *
Fp16WithoutLossScalingCheck::regionModule(const CallExpr *On,
                                          const FunctionDecl *Region,
                                          const FunctionDecl *Trainer) {
  // In the switch's function, the first its paths reach, or else in the
  // function that trains.
  if (const FunctionCfg *Cfg = context().cfgs(*Ctx).get(Region))
    if (std::optional<FunctionCfg::Place> Place = Cfg->placeOf(On, *Ctx)) {
      llvm::DenseSet<const Stmt *> InRegion;
      for (const auto &M : ModuleCalls)
        if (M.Function == Region)
          InRegion.insert(M.What);
      if (const Stmt *First =
              Cfg->search(*Place, [&](const CFGElement &Element) {
                std::optional<CFGStmt> S = Element.getAs<CFGStmt>();
                return S && InRegion.contains(S->getStmt())
                           ? FunctionCfg::Step::Found
                           : FunctionCfg::Step::Continue;
              }))
        return cast<Expr>(First);
    }
  for (const auto &M : ModuleCalls)
    if (M.Function == Trainer)
      return M.What;
  return nullptr;
}

void Fp16WithoutLossScalingCheck::onEndOfTranslationUnit() {
  llvm::DenseSet<const FunctionDecl *> Reported;
  // Each choice of float16 is changed by the first finding it concerns.
  llvm::DenseSet<const CallExpr *> Fixed;
  DeviceFlow *Flow = Ctx ? &context().deviceFlow(*Ctx) : nullptr;
  for (const auto &[On, Function] : Enables) {
    if (Reported.contains(Function))
      continue;
    bool Fp16 = false;
    const DtypeChoice *Choice = choiceFor(On, Function, Fp16);
    if (!Fp16)
      continue;
    Repetition Loop = repetitionOf(On, *Flow);
    if (!Loop)
      continue;
    // The function that trains: the switch's own, or the loop's.
    const FunctionDecl *Trainer = Function;
    if (!trainsIn(Trainer))
      Trainer = Flow->index().enclosingFunction(Loop.Loop);
    if (!trainsIn(Trainer) || scalesLossIn(Trainer))
      continue;
    // CUDA autocast does nothing to a model on the CPU (another rule's
    // finding).
    const Expr *Module = regionModule(On, Function, Trainer);
    FactSet Devices =
        Module ? Flow->devicesOf(api::calledModule(Module)) : FactSet();
    if (!Devices.empty() && llvm::all_of(Devices, [](const DeviceFact &F) {
          return F.Kind == api::DeviceKind::CPU;
        }))
      continue;
    Reported.insert(Function);
    std::optional<AutocastCall> Read = autocast::classify(On, *Ctx);
    bool FixChoice = Choice && Fixed.insert(Choice->Read.Call).second;
    reportAt(*Read, Function, Trainer, Choice, FixChoice);
  }
  Enables.clear();
  DtypeChoices.clear();
  Backwards.clear();
  OptimizerSteps.clear();
  ModuleCalls.clear();
}

void Fp16WithoutLossScalingCheck::reportAt(const AutocastCall &On,
                                           const FunctionDecl *Region,
                                           const FunctionDecl *Trainer,
                                           const DtypeChoice *Choice,
                                           bool FixChoice) {
  ASTContext &Ctx = *this->Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  FindingBuilder Finding = report(
      Ctx, On.Call->getSourceRange(),
      "CUDA autocast computes in float16 in this training loop and the loss "
      "is not scaled before backward(), so gradients below float16's "
      "smallest subnormal (2^-24) round to zero and their parameters stop "
      "learning");
  Finding.remedy("compute in bfloat16, whose range is that of float32, or "
                 "scale the loss and skip steps whose gradients are not "
                 "finite");
  const CallExpr *Backward = nullptr;
  for (const auto &B : Backwards)
    if (B.Function == Trainer) {
      Backward = B.What;
      break;
    }
  if (Backward)
    Finding.note(Backward->getSourceRange(),
                 "the backward pass runs here, on the unscaled loss");
  if (Choice) {
    const CallExpr *Call = Choice->Read.Call;
    Finding.note(Call->getSourceRange(), "float16 is chosen here");
    if (FixChoice)
      Finding.replace(Call->getArg(Call->getNumArgs() - 1)->getSourceRange(),
                      "at::kBFloat16");
  } else if (const Stmt *Statement = statementInBlock(On.Call, Ctx)) {
    Finding.insertBefore(
        Statement->getBeginLoc(),
        (On.TakesDevice
             ? "at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);\n"
             : "at::autocast::set_autocast_gpu_dtype(at::kBFloat16);\n") +
            indentationOf(Statement->getBeginLoc(), SM));
  }

  const Expr *Module = regionModule(On.Call, Region, Trainer);
  const Expr *Step = nullptr;
  for (const auto &S : OptimizerSteps)
    if (S.Function == Trainer) {
      Step = S.What;
      break;
    }
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  Finding.recipe(
      {{"scenario", scenario::Fp16WithoutLossScaling},
       {"device", "cuda"},
       {"dtype", autocast::DefaultCudaDtype},
       {"module",
        Module ? recipe::describeModule(api::calledModule(Module), nullptr, Ctx)
               : nlohmann::json()},
       {"input",
        Module ? recipe::describeInput(api::moduleInput(Module), Flow, Ctx)
               : nlohmann::json()},
       {"optimizer", recipe::describeOptimizer(Step)},
       {"backward",
        recipe::describeBackward(Backward, context().autocastFlow(Ctx))}});
}

} // namespace torchlint
