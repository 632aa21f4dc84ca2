#include "analysis/AnalysisContext.h"

#include "analysis/AutocastFlow.h"
#include "analysis/DeviceFlow.h"
#include "analysis/FunctionCfg.h"
#include "analysis/GradModeFlow.h"
#include "analysis/ModuleModes.h"

using namespace clang;

namespace torchlint {

AnalysisContext::AnalysisContext(const UserCode &Code, FindingSink &Sink,
                                 const RuleOptions *Options)
    : Code(Code), Sink(Sink), Options(Options) {}

AnalysisContext::~AnalysisContext() = default;

DeviceFlow &AnalysisContext::deviceFlow(ASTContext &Ctx) {
  if (!WithGpu || &WithGpu->astContext() != &Ctx)
    WithGpu = std::make_unique<DeviceFlow>(Ctx, Code, Machine::WithGpu);
  return *WithGpu;
}

DeviceFlow &AnalysisContext::deviceFlowWithoutGpu(ASTContext &Ctx) {
  if (!WithoutGpu || &WithoutGpu->astContext() != &Ctx)
    WithoutGpu = std::make_unique<DeviceFlow>(Ctx, Code, Machine::WithoutGpu);
  return *WithoutGpu;
}

FunctionCfgCache &AnalysisContext::cfgs(ASTContext &Ctx) {
  if (!Cfgs || &Cfgs->astContext() != &Ctx)
    Cfgs = std::make_unique<FunctionCfgCache>(Ctx);
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
    Recording = std::make_unique<GradModeFlow>(Ctx, *LifetimeCfgs);
  }
  return *Recording;
}

} // namespace torchlint
