#include "rules/EvalWithoutNoGradCheck.h"

#include "common/Scenarios.h"

#include "analysis/DeviceFlow.h"
#include "analysis/GradMode.h"
#include "analysis/GradModeFlow.h"
#include "analysis/GraphUses.h"
#include "analysis/Loops.h"
#include "analysis/ModuleModes.h"
#include "analysis/StepContext.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo EvalWithoutNoGradCheck::Info = {
    "torch-eval-without-no-grad",
    "EvalWithoutNoGrad",
    "a module runs for evaluation or inference while autograd records",
    Level::Warning,
    /*OffersFixIts=*/true,
    "performance,memory,libtorch",
    "high",
};

namespace {
class NameFinder : public RecursiveASTVisitor<NameFinder> {
public:
  explicit NameFinder(llvm::StringRef Name) : Name(Name) {}
  bool VisitNamedDecl(NamedDecl *D) {
    if (D->getDeclName().isIdentifier() && D->getName() == Name)
      Found = true;
    return !Found;
  }
  llvm::StringRef Name;
  bool Found = false;
};

/// A name for the guard, among Names, that nothing in the function uses yet.
std::string guardName(const FunctionDecl *FD,
                      std::initializer_list<const char *> Names) {
  for (const char *Name : Names) {
    NameFinder Finder(Name);
    Finder.TraverseDecl(const_cast<FunctionDecl *>(FD));
    if (!Finder.Found)
      return Name;
  }
  return std::string(*std::prev(Names.end())) + "_";
}

/// The guard that the fix declares. A TorchScript module loaded for
/// inference needs no gradient ever: InferenceMode also skips the version
/// counters and view tracking that NoGradGuard keeps.
std::string guardDeclaration(const FunctionDecl *FD, bool ForScriptModule) {
  if (ForScriptModule)
    return "c10::InferenceMode " +
           guardName(FD, {"inference_mode", "inference_guard",
                          "torchlint_inference_mode"});
  return "torch::NoGradGuard " +
         guardName(FD, {"no_grad", "no_grad_guard", "torchlint_no_grad"});
}

/// The indentation of the block's first statement, when it starts a line.
std::optional<std::string> indentationIn(const CompoundStmt *Block,
                                         const ASTContext &Ctx) {
  if (Block->body_empty())
    return std::nullopt;
  SourceLocation First = Block->body_front()->getBeginLoc();
  if (First.isMacroID())
    return std::nullopt;
  llvm::StringRef Prefix = textBeforeOnLine(First, Ctx.getSourceManager());
  if (Prefix.find_first_not_of(" \t") != llvm::StringRef::npos)
    return std::nullopt;
  return Prefix.str();
}

/// The blocks around S in its function, outermost first.
llvm::SmallVector<const CompoundStmt *, 8> enclosingBlocks(const Stmt *S,
                                                           ASTContext &Ctx) {
  llvm::SmallVector<const CompoundStmt *, 8> Blocks;
  DynTypedNode Node = DynTypedNode::create(*S);
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      break;
    Node = Parents[0];
    const auto *Parent = Node.get<Stmt>();
    if (!Parent) {
      if (Node.get<VarDecl>())
        continue;
      break;
    }
    if (isa<LambdaExpr>(Parent))
      break;
    if (const auto *Block = dyn_cast<CompoundStmt>(Parent))
      Blocks.push_back(Block);
  }
  std::reverse(Blocks.begin(), Blocks.end());
  return Blocks;
}

/// The constant trip count of `for (...; i < N; ...)`, or null.
nlohmann::json tripCount(const Stmt *Loop, ASTContext &Ctx) {
  const auto *For = dyn_cast_or_null<ForStmt>(Loop);
  const auto *Cond =
      For ? dyn_cast_or_null<BinaryOperator>(For->getCond()) : nullptr;
  if (!Cond || (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_NE))
    return nullptr;
  return recipe::constantValue(Cond->getRHS(), Ctx);
}
} // namespace

void EvalWithoutNoGradCheck::registerMatchers(MatchFinder *Finder) {
  matchers::matchModuleCalls(Finder, this);
}

const CompoundStmt *EvalWithoutNoGradCheck::guardBlock(const Expr *Call,
                                                       const FunctionDecl *FD,
                                                       ASTContext &Ctx) {
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  for (const CompoundStmt *Block : enclosingBlocks(Call, Ctx))
    if (!gradientUseIn(Block, Flow) && !trainingIn(Block, Ctx))
      return Block;
  return nullptr;
}

void EvalWithoutNoGradCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<Expr>("module-call");
  const Expr *Module = api::calledModule(Call);
  const CXXRecordDecl *Impl =
      Module ? api::moduleClassOf(Module->getType()) : nullptr;
  // A module without parameters records nothing once its inputs do not.
  if (!Impl || api::isParameterFree(Impl))
    return;
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  if (!Flow.reachable(Call))
    return;
  const FunctionDecl *FD = Flow.index().enclosingFunction(Call);
  if (!FD || !FD->getBody())
    return;
  // A module's own forward runs its submodules for whoever calls it.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      MD && api::isModuleClass(MD->getParent()))
    return;
  // Off already, or deliberately on.
  GradModeFlow &Recording = context().gradModeFlow(Ctx);
  if (Recording.before(Call).State != GradSetting::Default)
    return;

  std::optional<DeviceFlow::CallSite> Lambda = Flow.index().lambdaOrigin(FD);
  ModuleModes &Modes = context().moduleModes(Ctx);
  ModuleMode Mode = Modes.before(Call, Module).value_or(ModuleMode{true});
  const CXXMemberCallExpr *Evaluation =
      !Mode.MayBeTraining && Mode.MayBeEvaluation ? Mode.Evaluation : nullptr;
  auto InferenceByMode = [&] {
    if (Mode.MayBeTraining)
      return false; // in training mode on some path
    // With no mode set, only a function that never switches to training,
    // whose callers are all known, runs inference.
    if (!Evaluation && (Lambda || trainingIn(FD->getBody(), Ctx)))
      return false;
    // Nothing on the paths from the call, up to the next switch to training
    // and around loops too, needs the graph (a training loop before it does
    // not).
    if (Modes
            .reachesBeforeTraining(Call, Module,
                                   [&](const Stmt *S) {
                                     return gradientUseIn(S, Flow) != nullptr;
                                   })
            .value_or(true))
      return false;
    // A caller may run backward() on what it computes.
    return !tensorsCanEscape(FD);
  };
  // Else: nothing computed from the result reaches a backward pass (it is
  // only saved, printed or read as numbers), whatever the function trains;
  // or nothing in the whole program ever runs one (an inference deployment:
  // the model is run for its outputs only, wherever they go).
  StepContext &Steps = context().stepContext(Ctx);
  bool GraphUnused = false;
  if (!InferenceByMode()) {
    bool NeverTrains = !Lambda && Steps.programTrains() == false;
    if (!NeverTrains && (Lambda || graphMayBeUsed(Call, Ctx)))
      return;
    GraphUnused = true;
  }
  if (Lambda) {
    if (Lambda->Call &&
        Recording.before(Lambda->Call).State == GradSetting::Disabled)
      return;
  } else if (std::optional<bool> Callers =
                 gradDisabledInCallers(FD, Flow, Recording, &Steps);
             Callers.value_or(!Evaluation)) {
    return;
  }

  const CompoundStmt *Block = guardBlock(Call, FD, Ctx);
  if (!Reported.insert(Block ? static_cast<const void *>(Block) : FD).second)
    return;

  std::string Name = quoted(Module, Ctx, "the module");
  // InferenceMode only over the whole function: from an inner block, a
  // result kept in a variable declared outside it would be an inference
  // tensor that autograd later refuses.
  bool ScriptModule =
      api::isScriptModuleClass(Impl) && Block && Block == FD->getBody();
  std::string Guard = guardDeclaration(FD, ScriptModule);
  FindingBuilder Finding = report(
      Ctx, Call->getSourceRange(),
      Name + " runs forward " +
          (Evaluation ? "in evaluation mode" : "for inference") +
          " while autograd records, so every intermediate activation is kept "
          "for a backward pass that never comes, costing time and memory");
  std::string Where = Block && Block == FD->getBody() ? "function" : "block";
  if (ScriptModule)
    Finding.remedy("put '" + Guard + ";' at the start of the " + Where +
                   " (or 'torch::NoGradGuard no_grad;' where a result must "
                   "join autograd later)");
  else
    Finding.remedy("put '" + Guard +
                   ";' (or 'c10::InferenceMode guard;') at the start of the " +
                   Where);
  if (Evaluation)
    Finding.note(Evaluation->getSourceRange(),
                 "the module is switched to evaluation mode here");
  else if (GraphUnused && gradientUseIn(FD->getBody(), Flow))
    Finding.note(FD->getLocation(),
                 "'" + FD->getNameAsString() +
                     "' runs backward() or an optimizer step, but never on "
                     "what this call computes");
  else if (gradientUseIn(FD->getBody(), Flow))
    Finding.note(FD->getLocation(),
                 "'" + FD->getNameAsString() +
                     "' runs no backward() or optimizer step after this call");
  else
    Finding.note(FD->getLocation(),
                 "'" + FD->getNameAsString() +
                     "' never runs backward() or steps an optimizer");
  if (Block) {
    std::optional<std::string> Indent = indentationIn(Block, Ctx);
    if (Indent)
      Finding.insertLineAfter(Block->getLBracLoc(), *Indent + Guard + ";");
  }

  Finding.recipe(
      {{"scenario", scenario::EvalWithoutNoGrad},
       {"module", recipe::describeModule(Module, nullptr, Ctx)},
       {"input", recipe::describeInput(api::moduleInput(Call), Flow, Ctx)},
       {"batches", tripCount(enclosingLoop(Call, Ctx), Ctx)}});
}

} // namespace torchlint
