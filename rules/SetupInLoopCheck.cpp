#include "rules/SetupInLoopCheck.h"

#include "common/Scenarios.h"

#include "analysis/DeviceFlow.h"
#include "analysis/EnclosingBlocks.h"
#include "analysis/Loops.h"
#include "analysis/StepContext.h"
#include "core/FixIts.h"
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

const RuleInfo SetupInLoopCheck::Info = {
    "torch-setup-in-loop",
    "SetupInLoop",
    "a model is loaded, or a module or an optimizer built, on every iteration "
    "of the loop that runs it",
    Level::Warning,
    /*OffersFixIts=*/true,
    "performance,libtorch",
    "high",
};

namespace {
/// What is set up: a TorchScript file loaded, a module with parameters or an
/// optimizer constructed.
enum class SetupKind { Load, Module, Optimizer };

/// What constructing a T sets up. MadeShared: T is what make_shared or
/// make_unique returns, whose pointee is built.
std::optional<SetupKind> kindOfConstructed(QualType T, bool MadeShared) {
  T = api::bareType(T);
  if (T.isNull())
    return std::nullopt;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (MadeShared) {
    if (!Spec || Spec->getTemplateArgs().size() < 1 ||
        Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
      return std::nullopt;
    T = api::bareType(Spec->getTemplateArgs()[0].getAsType());
  } else if (Spec && Spec->isInStdNamespace()) {
    return std::nullopt; // a pointer, a container, an optional: not built here
  }
  if (const CXXRecordDecl *Impl = api::moduleClassOf(T))
    if (!api::isScriptModuleClass(Impl) && !api::isParameterFree(Impl))
      return SetupKind::Module;
  if (api::isOptimizerClass(api::bareType(T)->getAsCXXRecordDecl()))
    return SetupKind::Optimizer;
  return std::nullopt;
}

/// A construction that builds a new module or optimizer: not a copy, a move
/// or an empty holder (`Net model{nullptr}`).
AST_MATCHER(CXXConstructExpr, buildsModuleOrOptimizer) {
  const CXXConstructorDecl *Ctor = Node.getConstructor();
  if (!Ctor || Ctor->isCopyOrMoveConstructor())
    return false;
  if (Node.getNumArgs() == 1 &&
      Node.getArg(0)->IgnoreImpCasts()->getType()->isNullPtrType())
    return false;
  // A holder around a module built elsewhere (`Net(std::make_shared<...>())`)
  // builds nothing itself.
  for (const Expr *Arg : Node.arguments())
    if (api::moduleClassOf(Arg->getType()))
      return false;
  return kindOfConstructed(Node.getType(), /*MadeShared=*/false).has_value();
}

AST_MATCHER(CallExpr, makesModuleOrOptimizer) {
  return kindOfConstructed(Node.getType(), /*MadeShared=*/true).has_value();
}

/// A write to D inside Loop: an assignment, an increment, a non-const method
/// called on it, or D passed where a function may change it. Calls on a
/// module (its holder or pointer) change the module, not which module it is.
class WriteFinder : public RecursiveASTVisitor<WriteFinder> {
public:
  explicit WriteFinder(const ValueDecl *D)
      : D(D), Handle(api::moduleClassOf(D->getType()) != nullptr) {}
  bool VisitBinaryOperator(BinaryOperator *Op) {
    if (Op->isAssignmentOp() && names(Op->getLHS()))
      Found = true;
    return !Found;
  }
  bool VisitUnaryOperator(UnaryOperator *Op) {
    if (Op->isIncrementDecrementOp() && names(Op->getSubExpr()))
      Found = true;
    return !Found;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    const CXXMethodDecl *MD = Call->getMethodDecl();
    if (!Handle && MD && !MD->isConst() &&
        names(Call->getImplicitObjectArgument()))
      Found = true;
    return !Found;
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->isAssignmentOp() && Op->getNumArgs() >= 1 &&
        names(Op->getArg(0))) {
      Found = true;
      return false;
    }
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || Handle)
      return true;
    // An operator that is a member (`path += ...`) has its object first.
    unsigned Shift = isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD);
    if (Shift && Call->getNumArgs() >= 1 && names(Call->getArg(0)) &&
        !cast<CXXMethodDecl>(FD)->isConst())
      Found = true;
    for (unsigned I = Shift; I < Call->getNumArgs(); ++I) {
      if (I - Shift >= FD->getNumParams())
        break;
      QualType T = FD->getParamDecl(I - Shift)->getType();
      if (((T->isReferenceType() &&
            !T.getNonReferenceType().isConstQualified()) ||
           (T->isPointerType() && !T->getPointeeType().isConstQualified())) &&
          names(Call->getArg(I)))
        Found = true;
    }
    return !Found;
  }
  bool Found = false;

private:
  bool names(const Expr *E) const {
    E = E->IgnoreParenImpCasts();
    if (const auto *Address = dyn_cast<UnaryOperator>(E);
        Address && Address->getOpcode() == UO_AddrOf)
      E = Address->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return Ref->getDecl() == D;
    if (const auto *Member = dyn_cast<MemberExpr>(E))
      return Member->getMemberDecl() == D || names(Member->getBase());
    return false;
  }
  const ValueDecl *D;
  bool Handle;
};

/// The variables and members that Setup reads.
class ReadFinder : public RecursiveASTVisitor<ReadFinder> {
public:
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (isa<VarDecl>(Ref->getDecl()) || isa<BindingDecl>(Ref->getDecl()))
      Read.push_back(Ref->getDecl());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *Member) {
    if (isa<FieldDecl>(Member->getMemberDecl()))
      Read.push_back(Member->getMemberDecl());
    return true;
  }
  std::vector<const ValueDecl *> Read;
};

bool contains(const Stmt *Outer, SourceLocation Loc, const SourceManager &SM) {
  SourceRange R = Outer->getSourceRange();
  return !SM.isBeforeInTranslationUnit(Loc, R.getBegin()) &&
         !SM.isBeforeInTranslationUnit(R.getEnd(), Loc);
}

/// A loop nested in Loop trains (backward(), an optimizer step): Loop runs
/// a whole training per iteration (k-fold, an ensemble, a search), for
/// which a fresh module and optimizer are the point.
class NestedTraining : public RecursiveASTVisitor<NestedTraining> {
public:
  bool TraverseStmt(Stmt *S) {
    if (!S || Found)
      return true;
    bool Loop = isa<ForStmt>(S) || isa<CXXForRangeStmt>(S) ||
                isa<WhileStmt>(S) || isa<DoStmt>(S);
    Depth += Loop;
    RecursiveASTVisitor::TraverseStmt(S);
    Depth -= Loop;
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitCallExpr(CallExpr *Call) {
    if (Depth > 1 && (api::isBackwardCall(Call) || api::isOptimizerCall(Call)))
      Found = true;
    return true;
  }
  int Depth = 0;
  bool Found = false;
};

/// What Setup reads changes from one iteration to the next: it names a
/// variable of the loop (its counter, the element of a range-for) or one the
/// loop writes. A loop over files or configurations loads each on purpose.
bool variesWithLoop(const Expr *Setup, const Stmt *Loop, ASTContext &Ctx) {
  ReadFinder Reads;
  Reads.TraverseStmt(const_cast<Expr *>(Setup));
  for (const ValueDecl *D : Reads.Read) {
    if (!isa<FieldDecl>(D) &&
        contains(Loop, D->getLocation(), Ctx.getSourceManager()))
      return true;
    WriteFinder Writes(D);
    Writes.TraverseStmt(const_cast<Stmt *>(Loop));
    if (Writes.Found)
      return true;
  }
  return false;
}

const Stmt *parentStmt(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*S);
  for (unsigned Steps = 0; Steps < 8; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return nullptr;
    Node = Parents[0];
    if (const auto *Parent = Node.get<Stmt>())
      return Parent;
    if (!Node.get<VarDecl>())
      return nullptr;
  }
  return nullptr;
}

/// Setup does not run on every iteration as written: a branch decides
/// (`if (!loaded)`, `if (step % 100 == 0)`, a reload on request), or a try
/// block makes the loop one that retries what failed.
bool conditionalOrRetried(const Stmt *Setup, const Stmt *Loop,
                          ASTContext &Ctx) {
  return walkUpTo(Setup, Loop, Ctx, [](const Stmt *S, const Stmt *Child) {
    if (isa<CXXTryStmt>(S) || isa<SwitchStmt>(S) ||
        isa<AbstractConditionalOperator>(S))
      return true;
    if (const auto *If = dyn_cast<IfStmt>(S))
      return Child != If->getCond();
    const auto *Logical = dyn_cast<BinaryOperator>(S);
    return Logical && Logical->isLogicalOp() && Child == Logical->getRHS();
  });
}

/// The declaration that Setup initializes, when it is a statement of its own
/// directly in the loop's body: what the fix-it can move before the loop.
const DeclStmt *hoistableDeclaration(const Expr *Setup, const Stmt *Loop,
                                     ASTContext &Ctx) {
  const Stmt *S = Setup;
  const DeclStmt *Declaration = nullptr;
  for (unsigned Steps = 0; S && Steps < 8 && !Declaration; ++Steps) {
    S = parentStmt(S, Ctx);
    Declaration = dyn_cast_or_null<DeclStmt>(S);
    if (S && !Declaration && !isa<Expr>(S))
      return nullptr;
  }
  if (!Declaration || !Declaration->isSingleDecl())
    return nullptr;
  const auto *Var = dyn_cast<VarDecl>(Declaration->getSingleDecl());
  if (!Var || Var->isStaticLocal() ||
      api::ignoreWrappers(Var->getInit()) != api::ignoreWrappers(Setup))
    return nullptr;
  const auto *Body =
      dyn_cast_or_null<CompoundStmt>(parentStmt(Declaration, Ctx));
  if (!Body || parentStmt(Body, Ctx) != Loop)
    return nullptr;
  return Declaration;
}

/// What keeps the fix-it from moving Var's declaration out of the loop: Var
/// moved or stored on each iteration (`models.push_back(model)`, which
/// holders share), or a setup whose arguments call the program's own
/// functions (`load(next_path())`), which may give another value each time.
class HoistBlocker : public RecursiveASTVisitor<HoistBlocker> {
public:
  explicit HoistBlocker(const VarDecl *Var) : Var(Var) {}
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    llvm::StringRef Name =
        FD && FD->getIdentifier() ? FD->getName() : llvm::StringRef();
    bool Stores = Name == "move" || Name == "push_back" ||
                  Name == "emplace_back" || Name == "insert" ||
                  Name == "emplace" || Name == "push";
    if (Stores)
      for (const Expr *Arg : Call->arguments())
        if (const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts()))
          if (Ref->getDecl() == Var)
            Found = true;
    return !Found;
  }
  bool Found = false;

private:
  const VarDecl *Var;
};

bool callsProgramFunctions(const Expr *Setup) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool VisitCallExpr(CallExpr *Call) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && !FD->isInStdNamespace() && !api::isInTorchNamespace(FD))
        if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); !MD || !MD->isConst())
          Found = true;
      return !Found;
    }
    bool Found = false;
  } F;
  F.TraverseStmt(const_cast<Expr *>(Setup));
  return F.Found;
}

/// The loop is a statement of a block, alone on its line: not the body of
/// an if without braces, not after a label or a pragma, where a line put
/// before it would change what it means.
bool takesALineBefore(const Stmt *Loop, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Start = Loop->getBeginLoc();
  if (Start.isMacroID() || statementInBlock(Loop, Ctx) != Loop ||
      textBeforeOnLine(Start, SM).find_first_not_of(" \t") !=
          llvm::StringRef::npos)
    return false;
  // The line above: a pragma (`#pragma omp parallel for`) belongs to the loop.
  llvm::StringRef Indent = textBeforeOnLine(Start, SM);
  SourceLocation LineStart =
      Start.getLocWithOffset(-static_cast<int>(Indent.size()));
  if (SM.getDecomposedLoc(LineStart).second == 0)
    return true;
  llvm::StringRef Above =
      textBeforeOnLine(LineStart.getLocWithOffset(-1), SM).ltrim(" \t");
  return !Above.starts_with("#");
}

/// Another declaration of Name in FD, outside Loop: hoisted, the moved one
/// would clash with it or hide it.
class NameClash : public RecursiveASTVisitor<NameClash> {
public:
  NameClash(llvm::StringRef Name, const Stmt *Loop, const SourceManager &SM)
      : Name(Name), Loop(Loop), SM(SM) {}
  bool VisitNamedDecl(NamedDecl *D) {
    if (D->getIdentifier() && D->getName() == Name &&
        !contains(Loop, D->getLocation(), SM))
      Found = true;
    return !Found;
  }
  bool Found = false;

private:
  llvm::StringRef Name;
  const Stmt *Loop;
  const SourceManager &SM;
};

std::string setupMessage(SetupKind Kind, const DeclStmt *Declaration) {
  std::string Name;
  if (Declaration)
    Name = "'" +
           cast<VarDecl>(Declaration->getSingleDecl())->getNameAsString() +
           "' ";
  switch (Kind) {
  case SetupKind::Load:
    return "'torch::jit::load' runs on every iteration of the loop that runs "
           "the model, so each iteration reads and deserializes the model "
           "file again";
  case SetupKind::Module:
    return "module " + Name +
           "is constructed on every iteration of the loop that runs it, so "
           "each iteration allocates and initializes its parameters again";
  case SetupKind::Optimizer:
    return "optimizer " + Name +
           "is constructed on every iteration of the loop that steps it, so "
           "each step allocates its state again and forgets its momentum";
  }
  return "";
}

const char *kindName(SetupKind Kind) {
  switch (Kind) {
  case SetupKind::Load:
    return "load";
  case SetupKind::Module:
    return "module";
  case SetupKind::Optimizer:
    return "optimizer";
  }
  return "";
}
} // namespace

void SetupInLoopCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(callee(functionDecl(matchers::isScriptModuleLoadDecl())))
          .bind("load"),
      this);
  Finder->addMatcher(cxxConstructExpr(buildsModuleOrOptimizer()).bind("build"),
                     this);
  Finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(
                                  "::std::make_shared", "::std::make_unique"))),
                              makesModuleOrOptimizer())
                         .bind("build"),
                     this);
}

void SetupInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const Expr *Setup = Result.Nodes.getNodeAs<Expr>("load");
  std::optional<SetupKind> Kind;
  if (Setup)
    Kind = SetupKind::Load;
  else if ((Setup = Result.Nodes.getNodeAs<Expr>("build")))
    Kind = kindOfConstructed(Setup->getType(), isa<CallExpr>(Setup));
  if (!Setup || !Kind || !Reported.insert(Setup).second)
    return;
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  if (Flow.index().inTemplatePattern(Setup) || !Flow.reachable(Setup))
    return;
  const Stmt *Loop = enclosingLoop(Setup, Ctx);
  if (!Loop || context().stepContext(Ctx).roleOf(Loop) != LoopRole::Step)
    return; // not a loop that runs a model on each iteration
  if (conditionalOrRetried(Setup, Loop, Ctx) ||
      variesWithLoop(Setup, Loop, Ctx))
    return;
  if (*Kind != SetupKind::Load) {
    NestedTraining Training;
    Training.TraverseStmt(const_cast<Stmt *>(Loop));
    if (Training.Found)
      return;
  }

  const DeclStmt *Declaration = hoistableDeclaration(Setup, Loop, Ctx);
  FindingBuilder Finding =
      report(Ctx, Setup->getSourceRange(), setupMessage(*Kind, Declaration));
  const Expr *Run = api::firstModuleCall(Loop);
  if (Run && Run != Setup)
    Finding.note(Run->getSourceRange(), "the loop runs the model here");
  Finding.remedy(*Kind == SetupKind::Optimizer
                     ? "construct it once, before the loop, so that it keeps "
                       "its state from one step to the next"
                     : "do it once, before the loop");

  // The fix moves the declaration, as written, before the loop.
  const SourceManager &SM = Ctx.getSourceManager();
  const FunctionDecl *Function = Flow.index().enclosingFunction(Setup);
  CharSourceRange Lines =
      Declaration ? wholeLinesOf(Declaration, Ctx) : CharSourceRange();
  SourceLocation LoopStart = Loop->getBeginLoc();
  const VarDecl *Hoisted =
      Declaration ? cast<VarDecl>(Declaration->getSingleDecl()) : nullptr;
  HoistBlocker Blocker(Hoisted);
  if (Hoisted)
    Blocker.TraverseStmt(const_cast<Stmt *>(Loop));
  if (Lines.isValid() && Function && !Blocker.Found &&
      !callsProgramFunctions(Setup) && takesALineBefore(Loop, Ctx)) {
    NameClash Clash(cast<VarDecl>(Declaration->getSingleDecl())->getName(),
                    Loop, SM);
    Clash.TraverseDecl(const_cast<FunctionDecl *>(Function));
    // The declaration as written, with the comment at the end of its line.
    llvm::StringRef Text =
        Lexer::getSourceText(CharSourceRange::getCharRange(
                                 Declaration->getBeginLoc(), Lines.getEnd()),
                             SM, Ctx.getLangOpts());
    if (!Clash.Found && !Text.empty()) {
      Finding.remove(Lines);
      Finding.insertBefore(LoopStart,
                           (Text + "\n" + indentationOf(LoopStart, SM)).str());
    }
  }

  nlohmann::json Recipe = {{"scenario", scenario::SetupInLoop},
                           {"setup", kindName(*Kind)}};
  if (Run) {
    Recipe["module"] =
        *Kind == SetupKind::Load
            ? nlohmann::json(nullptr)
            : recipe::describeModule(api::calledModule(Run), nullptr, Ctx);
    Recipe["input"] = recipe::describeInput(api::moduleInput(Run), Flow, Ctx);
  }
  Finding.recipe(std::move(Recipe));
}

} // namespace torchlint
