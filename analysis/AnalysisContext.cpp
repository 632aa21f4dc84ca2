#include "analysis/AnalysisContext.h"

#include "analysis/AutocastFlow.h"
#include "analysis/DeviceFlow.h"
#include "analysis/FunctionCfg.h"
#include "analysis/GradModeFlow.h"
#include "analysis/ModuleModes.h"
#include "analysis/UnitIndex.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"

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

UnitIndex &AnalysisContext::unitIndex(ASTContext &Ctx) {
  if (!Index || &Index->astContext() != &Ctx)
    Index = std::make_unique<UnitIndex>(Ctx, Code);
  return *Index;
}

DeviceFlow &AnalysisContext::deviceFlow(ASTContext &Ctx) {
  if (!WithGpu || &WithGpu->astContext() != &Ctx) {
    WithGpu = std::make_unique<DeviceFlow>(Ctx, Code, unitIndex(Ctx),
                                           Machine::WithGpu);
    limit(WithGpu->cfgs());
  }
  return *WithGpu;
}

DeviceFlow &AnalysisContext::deviceFlowWithoutGpu(ASTContext &Ctx) {
  if (!WithoutGpu || &WithoutGpu->astContext() != &Ctx) {
    WithoutGpu = std::make_unique<DeviceFlow>(Ctx, Code, unitIndex(Ctx),
                                              Machine::WithoutGpu);
    limit(WithoutGpu->cfgs());
  }
  return *WithoutGpu;
}

FunctionCfgCache &AnalysisContext::cfgs(ASTContext &Ctx) {
  if (!Cfgs || &Cfgs->astContext() != &Ctx) {
    Cfgs = std::make_unique<FunctionCfgCache>(Ctx);
    limit(*Cfgs);
  }
  return *Cfgs;
}

// A context that outlives an AST (the plugin's, between units) starts its
// flows afresh, with their CFGs.
AutocastFlow &AnalysisContext::autocastFlow(ASTContext &Ctx) {
  if (!Autocast || &Autocast->astContext() != &Ctx)
    Autocast = std::make_unique<AutocastFlow>(Ctx, cfgs(Ctx));
  return *Autocast;
}

ModuleModes &AnalysisContext::moduleModes(ASTContext &Ctx) {
  if (!Modes || &Modes->astContext() != &Ctx)
    Modes = std::make_unique<ModuleModes>(Ctx, cfgs(Ctx));
  return *Modes;
}

GradModeFlow &AnalysisContext::gradModeFlow(ASTContext &Ctx) {
  if (!Recording || &Recording->astContext() != &Ctx) {
    LifetimeCfgs =
        std::make_unique<FunctionCfgCache>(Ctx, ObjectLifetimes::Shown);
    limit(*LifetimeCfgs);
    Recording = std::make_unique<GradModeFlow>(Ctx, *LifetimeCfgs);
  }
  return *Recording;
}

} // namespace torchlint
