#include "rules/DeviceMismatchCheck.h"

#include "common/Scenarios.h"

#include "analysis/UnitIndex.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo DeviceMismatchCheck::Info = {
    "torch-device-mismatch",
    "DeviceMismatch",
    "a module or operation receives tensors that live on different devices",
    Level::Error,
    /*OffersFixIts=*/true,
    "correctness,gpu,libtorch",
    "high",
};

namespace {
AST_MATCHER(FunctionDecl, isLossFunctionDecl) {
  return api::isLossFunction(&Node);
}
AST_MATCHER(Expr, isTensorExpr) { return api::isTensor(Node.getType()); }

/// Picks the first pair of facts (in source order) that disagree.
std::optional<std::pair<DeviceFact, DeviceFact>>
disagreement(const FactSet &A, const FactSet &B) {
  for (const DeviceFact &X : A)
    for (const DeviceFact &Y : B)
      if (mayDiffer(X, Y))
        return std::make_pair(X, Y);
  return std::nullopt;
}

/// True when some known fact of B agrees with every fact of A: the mismatch
/// happens on some paths only.
bool agreesSometimes(const FactSet &A, const FactSet &B) {
  for (const DeviceFact &Y : B) {
    if (!Y.isKnown())
      continue;
    bool AgreesWithAll = true;
    for (const DeviceFact &X : A)
      if (mayDiffer(X, Y))
        AgreesWithAll = false;
    if (AgreesWithAll)
      return true;
  }
  return false;
}

/// On some paths the module is moved to the very device variable the input
/// is on: the paths where it is not were told apart by a condition (a flag,
/// the device's own value) that the flow does not relate to that variable,
/// so their disagreement is no evidence of a mismatch.
bool movedToTheSameDevice(const FactSet &ModuleFacts,
                          const DeviceFact &InputFact) {
  if (!InputFact.Symbol)
    return false;
  return llvm::any_of(ModuleFacts, [&](const DeviceFact &F) {
    return F.How != Provenance::ModuleCreated && F.Symbol == InputFact.Symbol;
  });
}

/// The function also hands Input's variable to an API that needs it on the
/// CPU (the lengths of a packed sequence): it is kept there by design, and a
/// module given it uses it on the host in the same way.
bool keptOnCpuByDesign(const Expr *Input, const FunctionDecl *Scope,
                       ASTContext &Ctx) {
  const auto *Ref = dyn_cast<DeclRefExpr>(api::ignoreWrappers(Input));
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Scope || !Scope->hasBody())
    return false;
  for (const BoundNodes &Nodes :
       match(findAll(callExpr().bind("call")), *Scope->getBody(), Ctx)) {
    const auto *Call = Nodes.getNodeAs<CallExpr>("call");
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      const auto *Arg =
          dyn_cast<DeclRefExpr>(api::ignoreWrappers(Call->getArg(I)));
      if (Arg && Arg->getDecl() == Var &&
          api::needsCpuArgument(Call->getDirectCallee(), I))
        return true;
    }
  }
  return false;
}

bool hasKnown(const FactSet &Facts) {
  for (const DeviceFact &F : Facts)
    if (F.isKnown())
      return true;
  return false;
}

} // namespace

void DeviceMismatchCheck::registerMatchers(MatchFinder *Finder) {
  matchers::matchModuleCalls(Finder, this);
  Finder->addMatcher(
      callExpr(callee(functionDecl(isLossFunctionDecl()))).bind("loss"), this);
  Finder->addMatcher(
      cxxOperatorCallExpr(hasAnyOverloadedOperatorName("+", "-", "*", "/",
                                                       "+=", "-=", "*=", "/="),
                          argumentCountIs(2), hasArgument(0, isTensorExpr()),
                          hasArgument(1, isTensorExpr()))
          .bind("arithmetic"),
      this);
}

void DeviceMismatchCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  if (const auto *Call = Result.Nodes.getNodeAs<Expr>("module-call")) {
    const Expr *Module = api::calledModule(Call);
    if (!Module)
      return;
    llvm::SmallVector<const Expr *, 2> Inputs = api::moduleInputs(Call);
    // A module without parameters (a loss, an activation) has no device of
    // its own: only its inputs must agree.
    const CXXRecordDecl *Impl = api::moduleClassOf(Module->getType());
    if (api::isParameterFree(Impl)) {
      checkOperands(Call,
                    api::isLossModule(Impl) ? "the loss" : "the module call",
                    Inputs, /*RequireModuleOutput=*/false, Ctx);
      return;
    }
    checkModuleCall(Call, Module, Inputs, Ctx);
    return;
  }
  if (const auto *Loss = Result.Nodes.getNodeAs<CallExpr>("loss")) {
    llvm::SmallVector<const Expr *, 2> Operands;
    for (const Expr *Arg : Loss->arguments())
      if (api::isTensor(Arg->getType()) && !isa<CXXDefaultArgExpr>(Arg))
        Operands.push_back(Arg);
    std::string What = "'" + Loss->getDirectCallee()->getNameAsString() + "'";
    checkOperands(Loss, What, Operands, /*RequireModuleOutput=*/false, Ctx);
    return;
  }
  if (const auto *Op =
          Result.Nodes.getNodeAs<CXXOperatorCallExpr>("arithmetic")) {
    const Expr *Operands[] = {Op->getArg(0), Op->getArg(1)};
    std::string What =
        std::string("'") + getOperatorSpelling(Op->getOperator()) + "'";
    checkOperands(Op, What, Operands, /*RequireModuleOutput=*/true, Ctx);
  }
}

void DeviceMismatchCheck::offerMove(FindingBuilder &Finding, const Expr *Input,
                                    const FactSet &Target, DeviceFlow &Flow) {
  // One device, written the same way on every path and visible where the
  // input is used: the expression the module was moved with, or the device
  // variable it was read from when that expression is out of scope. Only a
  // tensor moves with .to(): a vector of TorchScript values does not.
  if (!api::isTensor(Input->getType()))
    return;
  std::string DeviceText;
  for (const DeviceFact &F : Target) {
    if (!F.isKnown())
      continue;
    std::string Text;
    if (F.DeviceExpr && isUsableAt(F.DeviceExpr, Input, Flow))
      Text = api::sourceText(F.DeviceExpr, Flow.astContext());
    else if (F.Symbol && isUsableAt(F.Symbol, Input, Flow))
      Text = F.Symbol->getNameAsString();
    if (Text.empty() || (!DeviceText.empty() && Text != DeviceText))
      return;
    DeviceText = Text;
  }
  if (DeviceText.empty())
    return;
  if (Input->getBeginLoc().isMacroID() || Input->getEndLoc().isMacroID())
    return;
  if (needsParensForMember(Input)) {
    Finding.insertBefore(Input->getBeginLoc(), "(");
    Finding.insertAfter(Input->getEndLoc(), ").to(" + DeviceText + ")");
  } else {
    Finding.insertAfter(Input->getEndLoc(), ".to(" + DeviceText + ")");
  }
}

void DeviceMismatchCheck::checkModuleCall(const Expr *Call, const Expr *Module,
                                          llvm::ArrayRef<const Expr *> Inputs,
                                          ASTContext &Ctx) {
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  FactSet ModuleFacts = Flow.devicesOf(Module);
  if (!hasKnown(ModuleFacts))
    return;
  std::string ModuleName = quoted(Module, Ctx, "the module");
  for (const Expr *Input : Inputs) {
    FactSet InputFacts = Flow.devicesOf(Input);
    std::optional<std::pair<DeviceFact, DeviceFact>> Pair =
        disagreement(ModuleFacts, InputFacts);
    if (!Pair)
      continue;
    const auto &[ModuleFact, InputFact] = *Pair;
    if (InputFact.Kind == api::DeviceKind::CPU &&
        keptOnCpuByDesign(Input, Flow.index().enclosingFunction(Input), Ctx))
      continue;
    std::string InputName = quoted(Input, Ctx, "the input");
    bool SomePaths = agreesSometimes(ModuleFacts, InputFacts);
    if (SomePaths && movedToTheSameDevice(ModuleFacts, InputFact))
      continue;
    bool ModuleStaysOnCpu = ModuleFact.How == Provenance::ModuleCreated;

    std::string Message = named("input", Input, Ctx) +
                          (SomePaths ? " may be" : " is") + " on " +
                          deviceName(InputFact);
    if (SomePaths)
      Message += " (on some paths)";
    if (ModuleStaysOnCpu)
      Message += " but " + named("module", Module, Ctx) +
                 " is never moved off the CPU";
    else
      Message += " but " + named("module", Module, Ctx) + " is on " +
                 deviceName(ModuleFact);
    Message += ", so the call fails at run time with a device mismatch";

    FindingBuilder Finding = report(Ctx, Input->getSourceRange(), Message);
    Finding.note(ModuleFact.originRange(),
                 explainFact(ModuleFact, ModuleName, Ctx));
    Finding.pathNote(InputFact.originRange(),
                     explainFact(InputFact, InputName, Ctx));
    Finding.flowStep(Input->getSourceRange(),
                     InputName + " is passed to " + ModuleName + " here");
    // Moving the input to the CPU would "fix" the call by giving up the GPU:
    // only a move onto the module's accelerator is offered.
    if (ModuleFact.Kind != api::DeviceKind::CPU)
      offerMove(Finding, Input, ModuleFacts, Flow);

    const DeviceFact *Created = ModuleStaysOnCpu ? &ModuleFact : nullptr;
    Finding.recipe(
        {{"scenario", scenario::DeviceMismatch},
         {"module", recipe::describeModule(Module, Created, Ctx)},
         {"input", recipe::describeTensor(InputFact, Ctx)},
         {"module_device", deviceName(ModuleFact)},
         {"input_device", deviceName(InputFact)},
         {"device_expression", api::sourceText(ModuleFact.DeviceExpr, Ctx)}});
  }
}

void DeviceMismatchCheck::checkOperands(const Expr *Operation,
                                        llvm::StringRef What,
                                        llvm::ArrayRef<const Expr *> Operands,
                                        bool RequireModuleOutput,
                                        ASTContext &Ctx) {
  if (Operands.size() < 2)
    return;
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  FactSet First = Flow.devicesOf(Operands[0]);
  if (!hasKnown(First))
    return;
  for (const Expr *Other : Operands.drop_front()) {
    FactSet OtherFacts = Flow.devicesOf(Other);
    std::optional<std::pair<DeviceFact, DeviceFact>> Pair =
        disagreement(First, OtherFacts);
    if (!Pair)
      continue;
    auto [A, B] = *Pair;
    bool AIsOutput = A.How == Provenance::ModuleOutput;
    bool BIsOutput = B.How == Provenance::ModuleOutput;
    if (RequireModuleOutput &&
        ((!AIsOutput && !BIsOutput) || api::isScalarTensor(Operands[0]) ||
         api::isScalarTensor(Other)))
      continue;
    // Blame the operand that is not the model's output: the target.
    const Expr *Blamed = Other;
    const Expr *Reference = Operands[0];
    DeviceFact BlamedFact = B, ReferenceFact = A;
    const FactSet *ReferenceFacts = &First;
    FactSet BlamedFacts = OtherFacts;
    if (BIsOutput && !AIsOutput) {
      std::swap(Blamed, Reference);
      std::swap(BlamedFact, ReferenceFact);
      ReferenceFacts = &OtherFacts;
      BlamedFacts = First;
    }
    std::string BlamedName = quoted(Blamed, Ctx, "an operand");
    std::string ReferenceName = quoted(Reference, Ctx, "the other operand");
    bool SomePaths = agreesSometimes(*ReferenceFacts, BlamedFacts);
    std::string Message =
        BlamedName + (SomePaths ? " may be" : " is") + " on " +
        deviceName(BlamedFact) + (SomePaths ? " (on some paths)" : "") +
        " but " + ReferenceName + " is on " + deviceName(ReferenceFact) +
        ", so " + What.str() + " fails at run time with a device mismatch";

    FindingBuilder Finding = report(Ctx, Blamed->getSourceRange(), Message);
    Finding.note(ReferenceFact.originRange(),
                 explainFact(ReferenceFact, ReferenceName, Ctx));
    Finding.pathNote(BlamedFact.originRange(),
                     explainFact(BlamedFact, BlamedName, Ctx));
    Finding.flowStep(Blamed->getSourceRange(),
                     BlamedName + " meets " + ReferenceName + " here");
    // `total += out`: moving the left side would update a temporary copy.
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(Operation);
    bool BlamedIsUpdated = Op && Op->isAssignmentOp() &&
                           Op->getNumArgs() >= 1 && Op->getArg(0) == Blamed;
    if (ReferenceFact.Kind != api::DeviceKind::CPU && !BlamedIsUpdated)
      offerMove(Finding, Blamed, *ReferenceFacts, Flow);
    Finding.recipe({{"scenario", scenario::DeviceMismatch},
                    {"operation", What},
                    {"input", recipe::describeTensor(BlamedFact, Ctx)},
                    {"module_device", deviceName(ReferenceFact)},
                    {"input_device", deviceName(BlamedFact)},
                    {"device_expression",
                     api::sourceText(ReferenceFact.DeviceExpr, Ctx)}});
    return; // one finding per operation
  }
}

} // namespace torchlint
