#include "rules/DeviceNotes.h"

#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace torchlint {

std::string deviceName(const DeviceFact &F) {
  std::string Name = api::deviceKindName(F.Kind);
  if (F.Kind == api::DeviceKind::CUDA && F.Index >= 0)
    Name = "GPU " + std::to_string(F.Index);
  return Name;
}

std::string quoted(const Expr *E, const ASTContext &Ctx,
                   llvm::StringRef Fallback) {
  std::string Text = api::sourceText(E, Ctx);
  if (Text.empty() || Text.size() > 40 || Text.find('\n') != std::string::npos)
    return Fallback.str();
  return "'" + Text + "'";
}

std::string named(llvm::StringRef Role, const Expr *E, const ASTContext &Ctx) {
  std::string Quoted = quoted(E, Ctx, "");
  if (Quoted.empty())
    return "the " + Role.str();
  return Role.str() + " " + Quoted;
}

std::string explainFact(const DeviceFact &F, llvm::StringRef Name,
                        const ASTContext &Ctx) {
  std::string Device = deviceName(F);
  auto DeviceText = [&] {
    std::string Text = api::sourceText(F.DeviceExpr, Ctx);
    return Text.empty() || Text.size() > 60 ? Device : "'" + Text + "'";
  };
  switch (F.How) {
  case Provenance::DataLoader:
    return Name.str() + " comes from a data loader here; its batches are on "
                        "the CPU";
  case Provenance::Factory:
    return Name.str() + " is created on " + Device + " here";
  case Provenance::FromBlob:
    return Name.str() + " wraps host memory here, on the CPU";
  case Provenance::Loaded:
    return Name.str() + " is loaded here, on the CPU";
  case Provenance::MovedTo:
    return Name.str() + " is moved to " + DeviceText() + " here";
  case Provenance::ToCuda:
    return Name.str() + " is copied to the GPU here";
  case Provenance::ToCpu:
    return Name.str() + " is copied to the CPU here";
  case Provenance::ModuleCreated:
    return Name.str() + " is created here, with its parameters on the CPU";
  case Provenance::ModuleMoved:
    return Name.str() + " is moved to " + DeviceText() + " here";
  case Provenance::ModuleLoaded:
    return Name.str() + " is loaded onto " + DeviceText() + " here";
  case Provenance::ModuleOutput:
    return Name.str() + " is computed by a module on " + Device + " here";
  case Provenance::DeviceLiteral:
  case Provenance::DefaultOptions:
    return Name.str() + " is placed on " + Device + " here";
  case Provenance::ChosenByCaller:
    return Name.str() + " is on the device its caller chooses here";
  case Provenance::NamedAtRunTime:
    return Name.str() + " is on the device named here at run time";
  case Provenance::Unknown:
    break;
  }
  return Name.str() + " gets its device here";
}

namespace {
bool onlyThroughRunTimeChoices(const FactSet &Facts) {
  bool Chosen = false;
  for (const DeviceFact &F : Facts) {
    if (!F.isKnown() || F.Kind == api::DeviceKind::CPU)
      continue;
    if (!F.RunTimeChoice)
      return false;
    Chosen = true;
  }
  return Chosen;
}

std::string chosenName(const DeviceFact &F) {
  const auto *Named = llvm::dyn_cast_or_null<clang::NamedDecl>(F.Symbol);
  return Named && Named->getIdentifier() ? "'" + Named->getNameAsString() + "'"
                                         : std::string("the device");
}

/// "'device' is a GPU", "'model' is on a GPU": a device is one, a tensor or
/// a module is on one.
/// The device is named by text (a flag, a configuration string).
bool namedByText(const DeviceFact &F) {
  const auto *Value = llvm::dyn_cast_or_null<clang::ValueDecl>(F.Symbol);
  return F.How == Provenance::NamedAtRunTime ||
         (Value && api::isStringLike(Value->getType()));
}

std::string onAGpu(const DeviceFact &F) {
  if (namedByText(F))
    return chosenName(F) + " names a GPU";
  const auto *Value = llvm::dyn_cast_or_null<clang::ValueDecl>(F.Symbol);
  bool IsDevice = !Value || api::isDeviceLike(Value->getType());
  return chosenName(F) + (IsDevice ? " is a GPU" : " is on a GPU");
}
} // namespace

std::string runTimeCondition(const FactSet &Facts) {
  if (!onlyThroughRunTimeChoices(Facts))
    return "";
  for (const DeviceFact &F : Facts)
    if (F.RunTimeChoice)
      return " (when " + onAGpu(F) + ")";
  return "";
}

void noteRepeatingCall(FindingBuilder &Finding, const Repetition &Repeated) {
  if (Repeated.Call)
    Finding.note(Repeated.Call->getSourceRange(),
                 "called on every iteration of a loop here");
}

void noteRunTimeChoices(FindingBuilder &Finding, const FactSet &Facts) {
  if (!onlyThroughRunTimeChoices(Facts))
    return;
  llvm::SmallPtrSet<const clang::Decl *, 2> Noted;
  for (const DeviceFact &F : Facts) {
    if (!F.RunTimeChoice || !F.Symbol || !Noted.insert(F.Symbol).second)
      continue;
    if (namedByText(F)) {
      Finding.note(F.Symbol->getSourceRange(),
                   chosenName(F) + " names the device at run time: the "
                                   "finding holds on the runs that name a GPU");
      continue;
    }
    if (llvm::isa<clang::ParmVarDecl>(F.Symbol)) {
      // A caller in another unit, known from its summary: the note goes
      // where that caller chose.
      const DeviceFact *Told = nullptr;
      for (const DeviceFact &G : Facts)
        if (G.Symbol == F.Symbol && G.Remote && G.isKnown() &&
            G.Kind != api::DeviceKind::CPU)
          Told = &G;
      if (Told) {
        const auto *Value = llvm::dyn_cast<clang::ValueDecl>(F.Symbol);
        bool IsDevice = api::isDeviceLike(Value->getType());
        Finding.note(*Told->Remote,
                     chosenName(F) +
                         (IsDevice ? " is set to " : " is put on ") +
                         deviceName(*Told) +
                         " here, by a caller in another unit: the finding "
                         "holds on the runs that get here");
      } else {
        Finding.note(F.Symbol->getSourceRange(),
                     chosenName(F) + " is set by callers outside this unit: "
                                     "the finding holds when they pass a GPU");
      }
      continue;
    }
    // A global, or a member of one, that the program assigns: the note goes
    // where it is set to the GPU.
    const DeviceFact *Gpu = nullptr;
    for (const DeviceFact &G : Facts)
      if (G.Symbol == F.Symbol && G.isKnown() &&
          G.Kind != api::DeviceKind::CPU && G.Literal)
        Gpu = &G;
    if (Gpu)
      Finding.note(Gpu->Literal->getSourceRange(),
                   chosenName(F) + " is set to " + deviceName(*Gpu) +
                       " here, at run time: the finding holds on the runs "
                       "that get here");
    else
      Finding.note(F.Symbol->getSourceRange(),
                   chosenName(F) + " is chosen at run time: the finding "
                                   "holds on the runs that make it a GPU");
  }
}

std::string acceleratorName(const FactSet &Facts) {
  for (const DeviceFact &F : Facts)
    if (F.isKnown() && F.Kind != api::DeviceKind::CPU)
      return deviceName(F);
  return "the GPU";
}

namespace {
/// The function or lambda whose body holds D, if D is local to one.
const DeclContext *owningFunction(const Decl *D) {
  const DeclContext *DC = D->getDeclContext();
  while (DC && !DC->isFunctionOrMethod())
    DC = DC->getParent();
  return DC;
}

bool declUsable(const ValueDecl *D, bool ThroughThis, const Expr *Site,
                const FunctionDecl *SiteFunction, const ASTContext &Ctx) {
  if (const auto *Field = dyn_cast<FieldDecl>(D)) {
    const auto *Method = dyn_cast_or_null<CXXMethodDecl>(SiteFunction);
    return ThroughThis && Method &&
           Method->getParent()->getCanonicalDecl() ==
               cast<CXXRecordDecl>(Field->getParent())->getCanonicalDecl();
  }
  const auto *Var = dyn_cast<VarDecl>(D);
  if (!Var || !Var->isLocalVarDeclOrParm())
    return true; // globals, functions, enumerators
  const auto *Owner = dyn_cast_or_null<FunctionDecl>(owningFunction(Var));
  if (!Owner || !SiteFunction ||
      Owner->getCanonicalDecl() != SiteFunction->getCanonicalDecl())
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  // Declared before the site, in a block that encloses it.
  if (!SM.isBeforeInTranslationUnit(Var->getLocation(), Site->getBeginLoc()))
    return false;
  if (isa<ParmVarDecl>(Var))
    return true;
  DynTypedNodeList Parents = const_cast<ASTContext &>(Ctx).getParents(*Var);
  const auto *Declaration =
      Parents.empty() ? nullptr : Parents[0].get<DeclStmt>();
  if (!Declaration)
    return false;
  DynTypedNodeList Scopes =
      const_cast<ASTContext &>(Ctx).getParents(*Declaration);
  const Stmt *Scope = Scopes.empty() ? nullptr : Scopes[0].get<Stmt>();
  return Scope && SM.isPointWithin(Site->getBeginLoc(), Scope->getBeginLoc(),
                                   Scope->getEndLoc());
}

bool usable(const Stmt *S, const Expr *Site, const FunctionDecl *SiteFunction,
            const ASTContext &Ctx) {
  if (!S)
    return true;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    return declUsable(Ref->getDecl(), false, Site, SiteFunction, Ctx);
  if (const auto *Member = dyn_cast<MemberExpr>(S))
    if (isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
      return declUsable(Member->getMemberDecl(), true, Site, SiteFunction, Ctx);
  for (const Stmt *Child : S->children())
    if (!usable(Child, Site, SiteFunction, Ctx))
      return false;
  return true;
}
} // namespace

bool isUsableAt(const Expr *E, const Expr *Site, DeviceFlow &Flow) {
  if (!E || !Site)
    return false;
  if (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return false;
  return usable(E, Site, Flow.index().enclosingFunction(Site),
                Flow.astContext());
}

bool isUsableAt(const ValueDecl *D, const Expr *Site, DeviceFlow &Flow) {
  return D && Site &&
         declUsable(D, /*ThroughThis=*/false, Site,
                    Flow.index().enclosingFunction(Site), Flow.astContext());
}

bool needsParensForMember(const Expr *E) {
  const Expr *Bare = api::ignoreWrappers(E);
  if (isa<DeclRefExpr>(Bare) || isa<MemberExpr>(Bare) || isa<ParenExpr>(Bare) ||
      isa<ArraySubscriptExpr>(Bare))
    return false;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Bare))
    return !(Op->getOperator() == OO_Call || Op->getOperator() == OO_Subscript);
  return !isa<CallExpr>(Bare);
}

bool addFactoryOptions(FindingBuilder &Finding, const CallExpr *Factory,
                       llvm::StringRef Setters, ASTContext &Ctx) {
  const FunctionDecl *FD = Factory->getDirectCallee();
  if (!FD)
    return false;
  for (unsigned I = 0; I < FD->getNumParams() && I < Factory->getNumArgs();
       ++I) {
    if (!api::isTensorOptions(FD->getParamDecl(I)->getType()))
      continue;
    const Expr *Arg = Factory->getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg)) {
      // Options go right after the last argument written.
      if (I == 0 || isa<CXXDefaultArgExpr>(Factory->getArg(I - 1)))
        return false;
      Finding.insertAfter(Factory->getArg(I - 1)->getEndLoc(),
                          (", torch::TensorOptions()" + Setters).str());
      return true;
    }
    const Expr *Written = Arg->IgnoreUnlessSpelledInSource();
    if (api::isTensorOptions(Written->getType())) {
      if (needsParensForMember(Written)) {
        Finding.insertBefore(Written->getBeginLoc(), "(");
        Finding.insertAfter(Written->getEndLoc(), (")" + Setters).str());
      } else {
        Finding.insertAfter(Written->getEndLoc(), Setters);
      }
      return true;
    }
    // A dtype, layout or device that converts to TensorOptions.
    Finding.insertBefore(Written->getBeginLoc(), "torch::TensorOptions(");
    Finding.insertAfter(Written->getEndLoc(), (")" + Setters).str());
    return true;
  }
  return false;
}

} // namespace torchlint
