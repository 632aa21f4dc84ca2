#include "analysis/UnitIndex.h"

#include "analysis/FunctionCfg.h"
#include "analysis/ReachingValues.h"
#include "core/UserCode.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace torchlint {

namespace {
class CallIndexer : public RecursiveASTVisitor<CallIndexer> {
public:
  using Base = RecursiveASTVisitor<CallIndexer>;
  CallIndexer(
      llvm::DenseMap<const FunctionDecl *, std::vector<UnitIndex::CallSite>>
          &Calls,
      llvm::DenseSet<const FunctionDecl *> &Escaping,
      llvm::DenseMap<const FunctionDecl *, UnitIndex::CallSite> &Lambdas,
      llvm::DenseSet<const VarDecl *> &ChangedGlobals,
      llvm::DenseMap<UnitIndex::StoreKey, std::vector<UnitIndex::GlobalStore>>
          &Stores,
      llvm::DenseSet<UnitIndex::StoreKey> &OpaqueStores,
      std::vector<const FunctionDecl *> &Defined)
      : Calls(Calls), Escaping(Escaping), Lambdas(Lambdas),
        ChangedGlobals(ChangedGlobals), Stores(Stores),
        OpaqueStores(OpaqueStores), Defined(Defined) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool TraverseDecl(Decl *D) {
    const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    // A template's pattern calls nothing: its instantiations do, and they are
    // visited on their own.
    if (FD && FD->isDependentContext())
      return true;
    if (FD && FD->doesThisDeclarationHaveABody()) {
      Stack.push_back(FD);
      Defined.push_back(FD);
    }
    bool Result = Base::TraverseDecl(D);
    if (FD && FD->doesThisDeclarationHaveABody())
      Stack.pop_back();
    return Result;
  }

  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    const FunctionDecl *Op = Lambda->getCallOperator();
    Lambdas.try_emplace(Op->getCanonicalDecl(),
                        UnitIndex::CallSite{Lambda, current()});
    Stack.push_back(Op);
    bool Result = Base::TraverseLambdaExpr(Lambda);
    Stack.pop_back();
    return Result;
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (const Expr *Callee = Call->getCallee())
      CalleeRefs.insert(Callee->IgnoreParenImpCasts());
    if (const FunctionDecl *Callee = Call->getDirectCallee())
      Calls[Callee->getCanonicalDecl()].push_back({Call, current()});
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    if (const CXXConstructorDecl *Ctor = Construct->getConstructor())
      Calls[Ctor->getCanonicalDecl()].push_back({Construct, current()});
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *Op) {
    if (Op->isAssignmentOp())
      noteChange(Op->getLHS(),
                 Op->getOpcode() == BO_Assign ? Op->getRHS() : nullptr);
    return true;
  }

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->isAssignmentOp() && Op->getNumArgs() >= 1)
      noteChange(Op->getArg(0),
                 Op->getOperator() == OO_Equal && Op->getNumArgs() == 2
                     ? Op->getArg(1)
                     : nullptr);
    return true;
  }

  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    if (api::isModuleTo(Call->getMethodDecl()))
      noteChange(api::withoutArrow(Call->getImplicitObjectArgument()), nullptr);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    // A function named other than as a callee escapes: its callers are
    // unknown, and so are its parameters.
    if (const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl()))
      if (!CalleeRefs.count(Ref))
        Escaping.insert(FD->getCanonicalDecl());
    return true;
  }

private:
  const FunctionDecl *current() const {
    return Stack.empty() ? nullptr : Stack.back();
  }

  /// Target changes, to Value when it is a plain assignment.
  void noteChange(const Expr *Target, const Expr *Value) {
    const Expr *Bare = api::ignoreWrappers(Target);
    const FieldDecl *Member = nullptr;
    if (const auto *ME = dyn_cast_or_null<MemberExpr>(Bare)) {
      Member = dyn_cast<FieldDecl>(ME->getMemberDecl());
      Bare = Member && !ME->isArrow() ? api::ignoreWrappers(ME->getBase())
                                      : nullptr;
    }
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Bare);
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Var || Var->isLocalVarDeclOrParm())
      return;
    Var = Var->getCanonicalDecl();
    if (!Member)
      ChangedGlobals.insert(Var);
    UnitIndex::StoreKey Key{Var, Member};
    if (Value)
      Stores[Key].push_back({Value, current()});
    else
      OpaqueStores.insert(Key);
  }

  llvm::DenseMap<const FunctionDecl *, std::vector<UnitIndex::CallSite>> &Calls;
  llvm::DenseSet<const FunctionDecl *> &Escaping;
  llvm::DenseMap<const FunctionDecl *, UnitIndex::CallSite> &Lambdas;
  llvm::DenseSet<const VarDecl *> &ChangedGlobals;
  llvm::DenseMap<UnitIndex::StoreKey, std::vector<UnitIndex::GlobalStore>>
      &Stores;
  llvm::DenseSet<UnitIndex::StoreKey> &OpaqueStores;
  std::vector<const FunctionDecl *> &Defined;
  std::vector<const FunctionDecl *> Stack;
  llvm::DenseSet<const Expr *> CalleeRefs;
};
} // namespace

void UnitIndex::build() {
  if (Built)
    return;
  Built = true;
  CallIndexer Indexer(Calls, Escaping, Lambdas, ChangedGlobals, Stores,
                      OpaqueStores, Defined);
  const SourceManager &SM = Ctx.getSourceManager();
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (Code.isAnalyzed(D->getLocation(), SM))
      Indexer.TraverseDecl(D);
}

std::optional<llvm::ArrayRef<UnitIndex::CallSite>>
UnitIndex::callSites(const FunctionDecl *FD) {
  build();
  FD = FD->getCanonicalDecl();
  if (Escaping.count(FD))
    return std::nullopt;
  // Virtual methods are reached through overriders and base pointers too.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    if (MD->isVirtual())
      return std::nullopt;
  auto It = Calls.find(FD);
  if (It == Calls.end())
    return llvm::ArrayRef<CallSite>();
  return llvm::ArrayRef<CallSite>(It->second);
}

llvm::ArrayRef<UnitIndex::CallSite>
UnitIndex::seenCalls(const FunctionDecl *FD) {
  build();
  auto It = Calls.find(FD->getCanonicalDecl());
  if (It == Calls.end())
    return {};
  return It->second;
}

std::vector<const FunctionDecl *> UnitIndex::callees() {
  build();
  std::vector<const FunctionDecl *> Result;
  for (const auto &Entry : Calls)
    Result.push_back(Entry.first);
  return Result;
}

llvm::ArrayRef<const FunctionDecl *> UnitIndex::definitions() {
  build();
  return Defined;
}

std::optional<UnitIndex::CallSite>
UnitIndex::lambdaOrigin(const FunctionDecl *CallOperator) {
  build();
  auto It = Lambdas.find(CallOperator->getCanonicalDecl());
  if (It == Lambdas.end())
    return std::nullopt;
  return It->second;
}

namespace {
/// The local variable whose initializer is Lambda itself, of the closure's
/// own type; null otherwise (a std::function, an argument, a temporary).
const VarDecl *variableHolding(const LambdaExpr *Lambda, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*Lambda);
  for (unsigned Steps = 0; !Parents.empty() && Steps < 8; ++Steps) {
    const DynTypedNode &Parent = Parents[0];
    if (const auto *Var = Parent.get<VarDecl>())
      return Var->isLocalVarDecl() && Var->getType()->getAsCXXRecordDecl() ==
                                          Lambda->getLambdaClass()
                 ? Var
                 : nullptr;
    const auto *E = Parent.get<Expr>();
    if (!E || !(isa<ExprWithCleanups>(E) || isa<MaterializeTemporaryExpr>(E) ||
                isa<CXXBindTemporaryExpr>(E) || isa<ImplicitCastExpr>(E) ||
                isa<CXXConstructExpr>(E)))
      return nullptr;
    Parents = Ctx.getParents(Parent);
  }
  return nullptr;
}

/// Ref is the object of a call of its closure: `name(args)`.
bool isCalled(const DeclRefExpr *Ref, ASTContext &Ctx) {
  const Expr *Child = Ref;
  DynTypedNodeList Parents = Ctx.getParents(*Ref);
  while (!Parents.empty()) {
    if (const auto *Cast = Parents[0].get<ImplicitCastExpr>()) {
      Child = Cast;
      Parents = Ctx.getParents(*Cast);
      continue;
    }
    const auto *Call = Parents[0].get<CXXOperatorCallExpr>();
    return Call && Call->getOperator() == OO_Call && Call->getNumArgs() > 0 &&
           Call->getArg(0) == Child;
  }
  return false;
}
} // namespace

std::optional<llvm::ArrayRef<UnitIndex::CallSite>>
UnitIndex::lambdaCalls(const FunctionDecl *CallOperator) {
  std::optional<CallSite> Origin = lambdaOrigin(CallOperator);
  const auto *Lambda = Origin ? dyn_cast<LambdaExpr>(Origin->Call) : nullptr;
  if (!Lambda || !Origin->Caller || !Origin->Caller->getBody())
    return std::nullopt;
  const VarDecl *Var = variableHolding(Lambda, Ctx);
  if (!Var)
    return std::nullopt;
  for (const DeclRefExpr *Ref : referencesTo(Var, Origin->Caller->getBody()))
    if (!isCalled(Ref, Ctx))
      return std::nullopt;
  return seenCalls(CallOperator);
}

const FunctionDecl *UnitIndex::enclosingFunction(const Stmt *S) const {
  return functionOf(S, Ctx);
}

bool UnitIndex::inTemplatePattern(const Stmt *S) const {
  return torchlint::inTemplatePattern(S, Ctx);
}

bool UnitIndex::isChanged(const VarDecl *Global) {
  build();
  return ChangedGlobals.count(Global->getCanonicalDecl()) != 0;
}

std::optional<llvm::ArrayRef<UnitIndex::GlobalStore>>
UnitIndex::globalStores(const VarDecl *Global, const FieldDecl *Member) {
  build();
  StoreKey Key{Global->getCanonicalDecl(), Member};
  // A change of the whole object changes each member.
  StoreKey Whole{Key.first, nullptr};
  if (OpaqueStores.count(Key) ||
      (Member && (OpaqueStores.count(Whole) || Stores.count(Whole))))
    return std::nullopt;
  auto It = Stores.find(Key);
  if (It == Stores.end())
    return llvm::ArrayRef<GlobalStore>();
  return llvm::ArrayRef<GlobalStore>(It->second);
}

} // namespace torchlint
