#include "rules/PageableCopyCheck.h"

#include "common/Scenarios.h"

#include "analysis/StepContext.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo PageableCopyCheck::Info = {
    "torch-pageable-copy",
    "PageableCopy",
    "a tensor is copied to the GPU from pageable memory on every step",
    Level::Warning,
    /*OffersFixIts=*/true,
    "performance,gpu,data-loading,libtorch",
    "high",
};

namespace {
const char *originNote(Provenance How) {
  switch (How) {
  case Provenance::Factory:
    return "allocated in pageable memory here";
  case Provenance::DataLoader:
    return "a data loader batch, in pageable memory";
  case Provenance::FromBlob:
    return "wraps pageable host memory here";
  case Provenance::Loaded:
    return "loaded into pageable memory here";
  default:
    return "in pageable memory here";
  }
}

/// The single factory call every path of the source comes from, if any.
const CallExpr *singleFactory(const FactSet &Source) {
  const CallExpr *Factory = nullptr;
  for (const DeviceFact &F : Source) {
    const auto *Call = dyn_cast_or_null<CallExpr>(F.Origin);
    if (F.How != Provenance::Factory || !Call || (Factory && Factory != Call))
      return nullptr;
    Factory = Call;
  }
  return Factory;
}

class CopyCounter : public RecursiveASTVisitor<CopyCounter> {
public:
  explicit CopyCounter(DeviceFlow &Flow) : Flow(Flow) {}
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    if (std::optional<DeviceCopy> Copy = asDeviceCopy(Call))
      if (reachesAccelerator(destinationOf(*Copy, Flow)) &&
          pageableSource(*Copy, Flow))
        ++Copies;
    return true;
  }
  DeviceFlow &Flow;
  unsigned Copies = 0;
};
} // namespace

void PageableCopyCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(matchers::tensorCopyCall().bind("copy"), this);
}

void PageableCopyCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("copy");
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  FactSet Destination;
  std::optional<DeviceCopy> Copy = copyToAccelerator(Call, Flow, Destination);
  if (!Copy)
    return;
  std::optional<FactSet> Source = pageableSource(*Copy, Flow);
  // A tensor made only to be moved is better made on the device; the rule
  // torch-cpu-tensor-then-moved says so.
  if (!Source || createdThenMoved(*Copy, Flow))
    return;
  Repetition Repeated = repetitionOf(Call, Flow, &context().stepContext(Ctx));
  // A copy on some iterations only (the first, a logging interval).
  if (!Repeated || (Repeated.Loop && !Repeated.Call &&
                    inPeriodicBranch(Call, Repeated.Loop, Ctx)))
    return;

  std::string Device = acceleratorName(Destination);
  const DeviceFact &Primary = Source->front();
  std::string Name = quoted(Copy->Source, Ctx, "the tensor");
  bool NonBlocking = isNonBlocking(*Copy, Ctx);
  std::string Message =
      NonBlocking
          ? "'non_blocking=true' has no effect: " + Name +
                " is in pageable host memory, so its copy to " + Device +
                " still blocks the host and cannot overlap with compute"
          : Name + " is copied to " + Device +
                " from pageable host memory on every iteration" +
                runTimeCondition(Destination) +
                ", so the host "
                "waits for each copy and it cannot overlap with compute";
  std::string Remedy;

  const CallExpr *Factory = singleFactory(*Source);
  bool FactoryHere = Factory && Flow.index().enclosingFunction(Factory) ==
                                    Flow.index().enclosingFunction(Call);
  // Allocated afresh on every step, a pinned source can be copied
  // asynchronously; one buffer refilled each step could be overwritten while
  // its copy is still in flight.
  bool FreshEachStep = FactoryHere && !Repeated.Call && Repeated.Loop &&
                       enclosingLoop(Factory, Ctx) == Repeated.Loop;
  switch (Primary.How) {
  case Provenance::Factory:
    Remedy = FreshEachStep
                 ? "allocate it pinned where it is created "
                   "('pinned_memory(true)') and copy it with "
                   "'non_blocking=true'"
                 : "allocate it pinned where it is created "
                   "('pinned_memory(true)'): the copy then needs no staging "
                   "(make it non-blocking only if nothing refills the "
                   "buffer before the copy completes)";
    break;
  case Provenance::DataLoader:
    Remedy = "data loader batches are always pageable (DataLoaderOptions "
             "has no pin-memory option): pin them in a transform mapped "
             "after the collation, which runs in the loader's worker "
             "threads, or copy each batch into a pinned staging tensor "
             "allocated once";
    break;
  default:
    Remedy = "copy it into a pinned staging tensor allocated once outside "
             "the loop ('pinned_memory(true)') and send that to the device";
    break;
  }

  FindingBuilder Finding = report(Ctx, Call->getSourceRange(), Message);
  Finding.remedy(Remedy);
  noteRunTimeChoices(Finding, Destination);
  if (Primary.Origin && Primary.Origin != Call)
    Finding.note(Primary.originRange(),
                 quoted(Copy->Source, Ctx, "the tensor") + ": " +
                     originNote(Primary.How));
  noteRepeatingCall(Finding, Repeated);
  if (FactoryHere)
    offerFix(Finding, *Copy, FreshEachStep, Factory, Ctx);

  const Stmt *Step = stepOf(Repeated, Call, Flow);
  CopyCounter Counter(Flow);
  Counter.TraverseStmt(const_cast<Stmt *>(Step));
  const Expr *ModuleCall = api::firstModuleCall(Step);
  nlohmann::json Recipe{{"scenario", scenario::PageableCopy},
                        {"tensor", recipe::describeTensor(Primary, Ctx)},
                        {"copies_per_step", std::max(Counter.Copies, 1u)},
                        {"non_blocking", NonBlocking},
                        {"copy", Copy->How == DeviceCopy::Form::To ? "to"
                                 : Copy->How == DeviceCopy::Form::Cuda
                                     ? "cuda"
                                     : "copy_"}};
  Recipe["module"] =
      ModuleCall
          ? recipe::describeModule(api::calledModule(ModuleCall), nullptr, Ctx)
          : nlohmann::json(nullptr);
  Finding.recipe(std::move(Recipe));
}

void PageableCopyCheck::offerFix(FindingBuilder &Finding,
                                 const DeviceCopy &Copy, bool Asynchronous,
                                 const CallExpr *Factory, ASTContext &Ctx) {
  if (!addFactoryOptions(Finding, Factory, ".pinned_memory(true)", Ctx) ||
      !Asynchronous || isNonBlocking(Copy, Ctx))
    return;
  if (Copy.NonBlocking) {
    Finding.replace(Copy.NonBlocking->getSourceRange(), "true");
    return;
  }
  const CXXMemberCallExpr *Call = Copy.Call;
  if (Copy.How == DeviceCopy::Form::Cuda) {
    if (const auto *Member = dyn_cast<MemberExpr>(Call->getCallee()))
      Finding.replace(SourceRange(Member->getMemberLoc(), Call->getEndLoc()),
                      "to(torch::kCUDA, /*non_blocking=*/true)");
    return;
  }
  const CXXMethodDecl *MD = Call->getMethodDecl();
  for (unsigned I = 1; I < MD->getNumParams() && I < Call->getNumArgs(); ++I) {
    const IdentifierInfo *Param = MD->getParamDecl(I)->getIdentifier();
    if (!Param || Param->getName() != "non_blocking")
      continue;
    if (isa<CXXDefaultArgExpr>(Call->getArg(I - 1)))
      return;
    Finding.insertAfter(Call->getArg(I - 1)->getEndLoc(),
                        ", /*non_blocking=*/true");
    return;
  }
}

} // namespace torchlint
