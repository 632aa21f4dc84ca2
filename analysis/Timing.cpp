#include "analysis/Timing.h"

#include "analysis/FunctionCfg.h"
#include "analysis/HostSyncs.h"
#include "analysis/Loops.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <set>

using namespace clang;

namespace torchlint {

namespace {
/// The argument a clock function writes its time into, or -1.
int outArgumentOf(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return -1;
  std::string Name = FD->getQualifiedNameAsString();
  if (Name == "gettimeofday" || Name == "timespec_get" ||
      Name == "std::timespec_get")
    return 0;
  if (Name == "clock_gettime")
    return 1;
  return -1;
}

const Expr *skipCopies(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *C = dyn_cast<CXXConstructExpr>(E);
             C && C->getNumArgs() == 1)
      E = C->getArg(0);
    else if (const auto *W = dyn_cast<ExprWithCleanups>(E))
      E = W->getSubExpr();
    else
      return E;
  }
  return E;
}

/// The variable an operand names, through members (`end.tv_sec`).
const VarDecl *variableOf(const Expr *E) {
  E = skipCopies(E);
  while (const auto *Member = dyn_cast_or_null<MemberExpr>(E))
    E = skipCopies(Member->getBase());
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// The variable a clock read's value is kept in: the one it initializes or
/// is assigned to, or the one whose address it is given.
const VarDecl *keptIn(const CallExpr *Read, ASTContext &Ctx) {
  int Out = outArgumentOf(Read->getDirectCallee());
  if (Out >= 0) {
    if (static_cast<unsigned>(Out) >= Read->getNumArgs())
      return nullptr;
    const auto *Address =
        dyn_cast<UnaryOperator>(Read->getArg(Out)->IgnoreParenImpCasts());
    return Address && Address->getOpcode() == UO_AddrOf
               ? variableOf(Address->getSubExpr())
               : nullptr;
  }
  const Stmt *Child = Read;
  for (int Depth = 0; Depth < 8; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*Child);
    if (Parents.empty())
      return nullptr;
    if (const auto *Var = Parents[0].get<VarDecl>())
      return Var->getInit() && skipCopies(Var->getInit()) == Read ? Var
                                                                  : nullptr;
    const auto *Parent = Parents[0].get<Stmt>();
    if (!Parent)
      return nullptr;
    if (const auto *Assign = dyn_cast<BinaryOperator>(Parent))
      return Assign->getOpcode() == BO_Assign && Assign->getRHS() == Child
                 ? variableOf(Assign->getLHS())
                 : nullptr;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Parent))
      return Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
                     Op->getArg(1) == Child
                 ? variableOf(Op->getArg(0))
                 : nullptr;
    if (!isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
             ExprWithCleanups, CXXConstructExpr, ParenExpr>(Parent))
      return nullptr;
    Child = Parent;
  }
  return nullptr;
}

/// A difference of two clock values, with where each side comes from.
struct Difference {
  const Expr *Subtraction;
  std::vector<const Expr *> Ends, Starts;
};

/// The clock reads of a function body and the differences of their values.
class IntervalFinder : public RecursiveASTVisitor<IntervalFinder> {
public:
  explicit IntervalFinder(ASTContext &Ctx) : Ctx(Ctx) {}

  bool VisitCallExpr(CallExpr *Call) {
    if (!isClockRead(Call))
      return true;
    if (const VarDecl *Var = keptIn(Call, Ctx))
      ReadsInto[Var].push_back(Call);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *Op) {
    if (Op->getOpcode() == BO_Sub)
      Subtractions.push_back({Op, Op->getLHS(), Op->getRHS()});
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->getOperator() == OO_Minus && Op->getNumArgs() == 2)
      Subtractions.push_back({Op, Op->getArg(0), Op->getArg(1)});
    return true;
  }
  // A lambda's body is a function of its own, with a CFG of its own.
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }

  std::vector<Difference> differences() const {
    std::vector<Difference> Found;
    for (const auto &[Op, Left, Right] : Subtractions) {
      Difference D{Op, readsOf(Left), readsOf(Right)};
      if (!D.Ends.empty() && !D.Starts.empty())
        Found.push_back(std::move(D));
    }
    return Found;
  }

private:
  std::vector<const Expr *> readsOf(const Expr *Operand) const {
    const Expr *Bare = skipCopies(Operand);
    if (isClockRead(Bare))
      return {Bare};
    const VarDecl *Var = variableOf(Operand);
    auto It = Var ? ReadsInto.find(Var) : ReadsInto.end();
    return It == ReadsInto.end() ? std::vector<const Expr *>() : It->second;
  }

  ASTContext &Ctx;
  llvm::DenseMap<const VarDecl *, std::vector<const Expr *>> ReadsInto;
  struct Subtraction {
    const Expr *Op, *Left, *Right;
  };
  std::vector<Subtraction> Subtractions;
};

/// The difference is compared with something (`now() - last > 10s`,
/// `while (now() - start < budget)`): a throttle or a deadline, not a
/// measurement.
bool compared(const Expr *Subtraction, ASTContext &Ctx) {
  const Stmt *Child = Subtraction;
  for (int Depth = 0; Depth < 8; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*Child);
    const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!Parent)
      return false;
    if (const auto *Op = dyn_cast<BinaryOperator>(Parent))
      return Op->isComparisonOp();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Parent)) {
      OverloadedOperatorKind Kind = Op->getOperator();
      return Kind == OO_Less || Kind == OO_Greater || Kind == OO_LessEqual ||
             Kind == OO_GreaterEqual || Kind == OO_EqualEqual ||
             Kind == OO_ExclaimEqual || Kind == OO_Spaceship;
    }
    // Through conversions (duration_cast, a duration's constructor, count()).
    if (!isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
             ExprWithCleanups, CXXConstructExpr, ParenExpr, CallExpr,
             MemberExpr, CXXFunctionalCastExpr, CXXStaticCastExpr,
             CStyleCastExpr>(Parent))
      return false;
    Child = Parent;
  }
  return false;
}

std::vector<Difference> differencesIn(const FunctionDecl *Function,
                                      ASTContext &Ctx) {
  IntervalFinder Finder(Ctx);
  if (Function && Function->hasBody())
    Finder.TraverseStmt(Function->getBody());
  std::vector<Difference> Found = Finder.differences();
  Found.erase(std::remove_if(Found.begin(), Found.end(),
                             [&](const Difference &D) {
                               return compared(D.Subtraction, Ctx);
                             }),
              Found.end());
  return Found;
}

const Expr *elementExpr(const CFGElement &Element) {
  std::optional<CFGStmt> S = Element.getAs<CFGStmt>();
  return S ? dyn_cast<Expr>(S->getStmt()) : nullptr;
}

bool synchronizesIn(const FunctionDecl *FD, DeviceFlow &Flow, int Depth,
                    llvm::SmallPtrSetImpl<const FunctionDecl *> &Seen);

bool bodySynchronizes(const Stmt *Body, DeviceFlow &Flow, int Depth,
                      llvm::SmallPtrSetImpl<const FunctionDecl *> &Seen) {
  struct Finder : RecursiveASTVisitor<Finder> {
    DeviceFlow &Flow;
    int Depth;
    llvm::SmallPtrSetImpl<const FunctionDecl *> &Seen;
    bool Found = false;
    Finder(DeviceFlow &Flow, int Depth,
           llvm::SmallPtrSetImpl<const FunctionDecl *> &Seen)
        : Flow(Flow), Depth(Depth), Seen(Seen) {}
    bool VisitExpr(Expr *E) {
      if (waitsForGpu(E, Flow))
        Found = true;
      else if (const auto *Call = dyn_cast<CallExpr>(E))
        Found = synchronizesIn(Call->getDirectCallee(), Flow, Depth, Seen);
      return !Found;
    }
  } F(Flow, Depth, Seen);
  F.TraverseStmt(const_cast<Stmt *>(Body));
  return F.Found;
}

bool synchronizesIn(const FunctionDecl *FD, DeviceFlow &Flow, int Depth,
                    llvm::SmallPtrSetImpl<const FunctionDecl *> &Seen) {
  if (!FD || Depth <= 0 || api::isInTorchNamespace(FD) ||
      FD->isInStdNamespace() || !Seen.insert(FD).second)
    return false;
  const FunctionDecl *Definition = nullptr;
  if (!FD->hasBody(Definition) || !Definition->getBody())
    return false;
  return bodySynchronizes(Definition->getBody(), Flow, Depth - 1, Seen);
}

/// A tensor, or a standard container or tuple of them (two levels deep).
bool holdsTensors(QualType T, int Depth = 0) {
  T = api::bareType(T);
  if (T.isNull() || Depth > 2)
    return false;
  if (api::isTensor(T))
    return true;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace())
    return false;
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
    if (Arg.getKind() == TemplateArgument::Type &&
        holdsTensors(Arg.getAsType(), Depth + 1))
      return true;
  return false;
}

bool reachesAccelerator(const FactSet &Facts) {
  return std::any_of(Facts.begin(), Facts.end(), [](const DeviceFact &F) {
    return F.isKnown() && F.Kind != api::DeviceKind::CPU;
  });
}

/// The value Cond takes when the device it tests is an accelerator:
/// `device.is_cuda()`, `!device.is_cpu()` and their negations, for a device
/// that some path makes one. Nullopt for any other condition.
std::optional<bool> valueOnAccelerator(const Expr *Cond, DeviceFlow &Flow) {
  bool Negated = false;
  Cond = Cond ? Cond->IgnoreParenImpCasts() : nullptr;
  while (const auto *Not = dyn_cast_or_null<UnaryOperator>(Cond)) {
    if (Not->getOpcode() != UO_LNot)
      return std::nullopt;
    Negated = !Negated;
    Cond = Not->getSubExpr()->IgnoreParenImpCasts();
  }
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(Cond);
  const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() ||
      !api::isDeviceLike(Call->getImplicitObjectArgument()->getType()))
    return std::nullopt;
  bool Value;
  if (MD->getName() == "is_cuda")
    Value = true;
  else if (MD->getName() == "is_cpu")
    Value = false;
  else
    return std::nullopt;
  if (!reachesAccelerator(Flow.devicesOf(Call->getImplicitObjectArgument())))
    return std::nullopt;
  return Value != Negated;
}

/// After GPU work, the edges a machine with a GPU takes: not the arm of an
/// availability check that runs without CUDA, nor the arm of a device test
/// (`if (!device.is_cpu()) torch::cuda::synchronize();`) for the CPU.
bool takenAfterGpuWork(const FunctionCfg &Cfg, const CFGBlock &Block,
                       unsigned Succ, DeviceFlow &Flow) {
  if (!Cfg.edgePossible(Block, Succ, /*CudaAvailable=*/true))
    return false;
  if (Block.succ_size() != 2 || Succ > 1 || !Block.getTerminatorStmt() ||
      isa<SwitchStmt>(Block.getTerminatorStmt()))
    return true;
  // `if (anything) torch::cuda::synchronize();`: the program waits where it
  // believes there is something to wait for (use_cuda, device.type() ==
  // kCUDA, x.is_cuda()); on the runs that did GPU work, that is this one.
  if (const auto *If = dyn_cast<IfStmt>(Block.getTerminatorStmt());
      If && !If->getElse()) {
    const Stmt *Then = If->getThen();
    if (const auto *Body = dyn_cast_or_null<CompoundStmt>(Then))
      Then = Body->size() == 1 ? Body->body_front() : nullptr;
    const auto *Call = dyn_cast_or_null<Expr>(Then);
    std::optional<HostSync> Wait =
        Call ? hostSyncAt(Call->IgnoreParenImpCasts(), Flow) : std::nullopt;
    if (Wait && Wait->How == HostSync::Form::Synchronize)
      return Succ == 0;
  }
  std::optional<bool> Value =
      valueOnAccelerator(Block.getLastCondition(), Flow);
  // Successor 0 is taken when the condition holds.
  return !Value || *Value == (Succ == 0);
}
} // namespace

bool isClockRead(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return false;
  if (outArgumentOf(FD) >= 0)
    return true;
  std::string Name = FD->getQualifiedNameAsString();
  if (Name == "clock" || Name == "std::clock")
    return true;
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return MD && MD->isStatic() && FD->getName() == "now" &&
         llvm::StringRef(Name).starts_with("std::chrono::");
}

std::optional<FactSet> gpuWorkAt(const Expr *E, DeviceFlow &Flow) {
  if (api::isModuleCall(E)) {
    FactSet Facts = Flow.devicesOf(E);
    if (reachesAccelerator(Facts))
      return Facts;
    return std::nullopt;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call || !api::isBackwardCall(Call))
    return std::nullopt;
  const Expr *Tensor = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Tensor = Member->getImplicitObjectArgument();
  else if (Call->getNumArgs() > 0)
    Tensor = Call->getArg(0);
  if (!Tensor)
    return std::nullopt;
  FactSet Facts = Flow.devicesOf(Tensor);
  if (reachesAccelerator(Facts))
    return Facts;
  return std::nullopt;
}

bool synchronizesWithGpu(const Expr *E, DeviceFlow &Flow) {
  if (waitsForGpu(E, Flow))
    return true;
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return false;
  const FunctionDecl *Callee = Call->getDirectCallee();
  // A function of another unit that is handed tensors may read them on the
  // host (drawing a detection, writing a result): this unit cannot tell, and
  // a wait it cannot see is not reported as missing.
  if (Callee && !Callee->hasBody() && !api::isInTorchNamespace(Callee) &&
      !Callee->isInStdNamespace() &&
      std::any_of(Call->arg_begin(), Call->arg_end(),
                  [](const Expr *Arg) { return holdsTensors(Arg->getType()); }))
    return true;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Seen;
  return synchronizesIn(Callee, Flow, 2, Seen);
}

std::vector<UnsynchronizedInterval>
unsynchronizedIntervals(const FunctionDecl *Function, DeviceFlow &Flow) {
  std::vector<UnsynchronizedInterval> Found;
  ASTContext &Ctx = Flow.astContext();
  const FunctionCfg *Cfg = Flow.cfgs().get(Function);
  if (!Cfg)
    return Found;
  llvm::SmallPtrSet<const Expr *, 8> Ended;
  std::set<std::pair<const Expr *, const Expr *>> Checked;
  // Asked of every element on the paths: once each.
  llvm::DenseMap<const Expr *, bool> Waits;
  auto WaitsAt = [&](const Expr *E) {
    auto [It, New] = Waits.try_emplace(E, false);
    if (New)
      It->second = synchronizesWithGpu(E, Flow);
    return It->second;
  };
  for (const Difference &D : differencesIn(Function, Ctx)) {
    // A read into the start's variable starts the interval anew.
    llvm::SmallPtrSet<const Expr *, 4> Restarts(D.Starts.begin(),
                                                D.Starts.end());
    for (const Expr *End : D.Ends) {
      if (Ended.count(End))
        continue;
      for (const Expr *Start : D.Starts) {
        if (Start == End || !Checked.insert({Start, End}).second ||
            !Flow.reachable(Start) || !Flow.reachable(End))
          continue;
        std::optional<FunctionCfg::Place> From = Cfg->placeOf(Start, Ctx);
        if (!From)
          continue;
        // The GPU work that runs after the start and before the end.
        std::vector<std::pair<const Expr *, FactSet>> Work;
        Cfg->search(*From, [&](const CFGElement &Element) {
          const Expr *E = elementExpr(Element);
          if (E == End || Restarts.count(E))
            return FunctionCfg::Step::EndPath;
          if (E)
            if (std::optional<FactSet> Facts = gpuWorkAt(E, Flow))
              Work.emplace_back(E, std::move(*Facts));
          return FunctionCfg::Step::Continue;
        });
        // The latest of it from which the end is reached without a wait.
        for (auto It = Work.rbegin(); It != Work.rend(); ++It) {
          std::optional<FunctionCfg::Place> At = Cfg->placeOf(It->first, Ctx);
          if (!At)
            continue;
          const Stmt *Reached = Cfg->search(
              *At,
              [&](const CFGElement &Element) {
                const Expr *E = elementExpr(Element);
                if (E == End)
                  return FunctionCfg::Step::Found;
                if (E && (Restarts.count(E) || WaitsAt(E)))
                  return FunctionCfg::Step::EndPath;
                return FunctionCfg::Step::Continue;
              },
              nullptr,
              [&](const CFGBlock &Block, unsigned Succ) {
                return takenAfterGpuWork(*Cfg, Block, Succ, Flow);
              });
          if (Reached != End)
            continue;
          Found.push_back({Start, End, It->first, It->second, D.Subtraction});
          Ended.insert(End);
          break;
        }
        if (Ended.count(End))
          break;
      }
    }
  }
  const SourceManager &SM = Ctx.getSourceManager();
  std::sort(
      Found.begin(), Found.end(),
      [&](const UnsynchronizedInterval &A, const UnsynchronizedInterval &B) {
        return SM.isBeforeInTranslationUnit(A.End->getBeginLoc(),
                                            B.End->getBeginLoc());
      });
  return Found;
}

bool bracketsTimedInterval(const Expr *E, DeviceFlow &Flow) {
  ASTContext &Ctx = Flow.astContext();
  const FunctionCfg *Cfg = Flow.cfgs().of(E);
  if (!Cfg)
    return false;
  llvm::SmallPtrSet<const Expr *, 8> Ends;
  for (const Difference &D : differencesIn(Cfg->Function, Ctx)) {
    Ends.insert(D.Ends.begin(), D.Ends.end());
    Ends.insert(D.Starts.begin(), D.Starts.end());
  }
  std::optional<FunctionCfg::Place> From = Cfg->placeOf(E, Ctx);
  if (Ends.empty() || !From)
    return false;
  // The read must repeat with the wait: in the same innermost loop, and not
  // only on some of its iterations. A clock read after the loop (an epoch
  // timed as a whole) does not make a wait on every step part of the
  // timing.
  const Stmt *Loop = enclosingLoop(E, Ctx);
  return Cfg->search(*From, [&](const CFGElement &Element) {
    const Expr *At = elementExpr(Element);
    if (At && Ends.count(At) && enclosingLoop(At, Ctx) == Loop &&
        (!Loop || !inPeriodicBranch(At, Loop, Ctx)))
      return FunctionCfg::Step::Found;
    if (At && gpuWorkAt(At, Flow))
      return FunctionCfg::Step::EndPath;
    return FunctionCfg::Step::Continue;
  }) != nullptr;
}

} // namespace torchlint
