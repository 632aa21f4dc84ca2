#include "analysis/AnalysisContext.h"

#include "analysis/AutocastFlow.h"
#include "analysis/CodeWithErrors.h"
#include "analysis/DebugRegions.h"
#include "analysis/DeviceFlow.h"
#include "analysis/FunctionCfg.h"
#include "analysis/GradModeFlow.h"
#include "analysis/ModuleLayers.h"
#include "analysis/ModuleModes.h"
#include "analysis/StepContext.h"
#include "analysis/UnitIndex.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace torchlint {

AnalysisContext::AnalysisContext(const UserCode &Code, FindingSink &Sink,
                                 const RuleOptions *Options)
    : Code(Code), Sink(Sink), Distinct(Sink), Options(Options),
      FlowBudget(DefaultFlowBudget) {}

void AnalysisContext::DistinctFindings::consume(Finding F) {
  if (Seen.insert(F).second)
    Next.consume(std::move(F));
}

AnalysisContext::~AnalysisContext() = default;

bool AnalysisContext::inDebugOnlyCode(SourceLocation Loc,
                                      const SourceManager &SM) const {
  return Debug && Debug->contains(Loc, SM);
}

void AnalysisContext::limit(FunctionCfgCache &Cfgs) {
  Cfgs.setFlowBudget(FlowBudget, [this](const FunctionDecl *FD,
                                        llvm::StringRef Analysis) {
    if (!FD ||
        !Overruns.insert({FD->getCanonicalDecl(), Analysis.str()}).second)
      return;
    const SourceManager &SM = FD->getASTContext().getSourceManager();
    PresumedLoc Where =
        SM.getPresumedLoc(SM.getExpansionLoc(FD->getLocation()));
    std::string Place = Where.isValid()
                            ? std::string(" (") + Where.getFilename() + ":" +
                                  std::to_string(Where.getLine()) + ")"
                            : "";
    Sink.notice(Analysis.str() + " gave up on '" +
                FD->getQualifiedNameAsString() + "'" + Place +
                " at its budget (--flow-budget=" + std::to_string(FlowBudget) +
                " visits per block): the rules that ask it report nothing in "
                "that function");
  });
}

namespace {
/// The analysis in Slot when it was made for Ctx, else a fresh one from
/// Make: a context that outlives an AST (the plugin's, between units)
/// starts its analyses afresh, with their CFGs.
template <typename Analysis, typename Maker>
Analysis &madeFor(std::unique_ptr<Analysis> &Slot, ASTContext &Ctx,
                  Maker Make) {
  if (!Slot || &Slot->astContext() != &Ctx)
    Slot = Make();
  return *Slot;
}
} // namespace

bool AnalysisContext::inCodeWithErrors(ASTContext &Ctx, SourceLocation Loc) {
  return madeFor(Errors, Ctx,
                 [&] { return std::make_unique<CodeWithErrors>(Ctx, Code); })
      .contains(Loc);
}

UnitIndex &AnalysisContext::unitIndex(ASTContext &Ctx) {
  return madeFor(Index, Ctx,
                 [&] { return std::make_unique<UnitIndex>(Ctx, Code); });
}

DeviceFlow &AnalysisContext::deviceFlow(ASTContext &Ctx) {
  return madeFor(WithGpu, Ctx, [&] {
    auto Flow = std::make_unique<DeviceFlow>(Ctx, Code, unitIndex(Ctx),
                                             Machine::WithGpu);
    Flow->importSummaries(Imports);
    limit(Flow->cfgs());
    return Flow;
  });
}

DeviceFlow &AnalysisContext::deviceFlowWithoutGpu(ASTContext &Ctx) {
  return madeFor(WithoutGpu, Ctx, [&] {
    auto Flow = std::make_unique<DeviceFlow>(Ctx, Code, unitIndex(Ctx),
                                             Machine::WithoutGpu);
    limit(Flow->cfgs());
    return Flow;
  });
}

StepContext &AnalysisContext::stepContext(ASTContext &Ctx) {
  return madeFor(Steps, Ctx, [&] {
    auto Made = std::make_unique<StepContext>(Ctx, Code, deviceFlow(Ctx));
    Made->importSummaries(Imports);
    return Made;
  });
}

UnitSummary AnalysisContext::summarize(ASTContext &Ctx) {
  DeviceFlow &Flow = deviceFlow(Ctx);
  UnitSummary Summary = Flow.summarize();
  stepContext(Ctx).summarize(Summary, gradModeFlow(Ctx), autocastFlow(Ctx));
  // The virtual methods its summarized methods override, each base once
  // (one override may reach another's base through several paths).
  const SourceManager &SM = Ctx.getSourceManager();
  for (const FunctionDecl *FD : Flow.index().definitions()) {
    const auto *Method = dyn_cast<CXXMethodDecl>(FD);
    if (!Method || !Method->isVirtual() ||
        !SM.isInMainFile(Method->getLocation()))
      continue;
    std::optional<std::string> Name = Flow.linkName(Method);
    if (!Name || !Summary.Defines.count(*Name))
      continue;
    llvm::SmallVector<const CXXMethodDecl *, 4> Bases(
        Method->overridden_methods());
    llvm::SmallPtrSet<const CXXMethodDecl *, 4> Seen;
    while (!Bases.empty()) {
      const CXXMethodDecl *Base = Bases.pop_back_val();
      if (!Seen.insert(Base->getCanonicalDecl()).second)
        continue;
      if (std::optional<std::string> BaseName = Flow.linkName(Base))
        Summary.Overrides[*BaseName].insert(*Name);
      Bases.append(Base->overridden_methods().begin(),
                   Base->overridden_methods().end());
    }
  }
  return Summary;
}

FunctionCfgCache &AnalysisContext::cfgs(ASTContext &Ctx) {
  return madeFor(Cfgs, Ctx, [&] {
    auto Made = std::make_unique<FunctionCfgCache>(Ctx);
    limit(*Made);
    return Made;
  });
}

AutocastFlow &AnalysisContext::autocastFlow(ASTContext &Ctx) {
  return madeFor(Autocast, Ctx, [&] {
    return std::make_unique<AutocastFlow>(Ctx, cfgs(Ctx));
  });
}

ModuleLayers &AnalysisContext::moduleLayers(ASTContext &Ctx) {
  return madeFor(Layers, Ctx,
                 [&] { return std::make_unique<ModuleLayers>(Ctx); });
}

ModuleModes &AnalysisContext::moduleModes(ASTContext &Ctx) {
  return madeFor(Modes, Ctx,
                 [&] { return std::make_unique<ModuleModes>(Ctx, cfgs(Ctx)); });
}

GradModeFlow &AnalysisContext::gradModeFlow(ASTContext &Ctx) {
  return madeFor(Recording, Ctx, [&] {
    LifetimeCfgs =
        std::make_unique<FunctionCfgCache>(Ctx, ObjectLifetimes::Shown);
    limit(*LifetimeCfgs);
    return std::make_unique<GradModeFlow>(Ctx, *LifetimeCfgs);
  });
}

} // namespace torchlint
