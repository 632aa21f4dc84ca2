#include "analysis/AnalysisContext.h"

#include "analysis/AutocastFlow.h"
#include "analysis/DeviceFlow.h"
#include "analysis/FunctionCfg.h"
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

namespace {
/// The flows of one AST: a context that outlives an AST (the plugin's,
/// between units) starts them afresh with their CFGs.
template <typename Flow>
Flow &flowOf(std::unique_ptr<Flow> &Slot,
             std::unique_ptr<FunctionCfgCache> &Cfgs, ASTContext &Ctx) {
  if (!Cfgs || &Cfgs->astContext() != &Ctx)
    Cfgs = std::make_unique<FunctionCfgCache>(Ctx);
  if (!Slot || &Slot->astContext() != &Ctx)
    Slot = std::make_unique<Flow>(Ctx, *Cfgs);
  return *Slot;
}
} // namespace

FunctionCfgCache &AnalysisContext::cfgs(ASTContext &Ctx) {
  if (!Cfgs || &Cfgs->astContext() != &Ctx)
    Cfgs = std::make_unique<FunctionCfgCache>(Ctx);
  return *Cfgs;
}

AutocastFlow &AnalysisContext::autocastFlow(ASTContext &Ctx) {
  return flowOf(Autocast, Cfgs, Ctx);
}

ModuleModes &AnalysisContext::moduleModes(ASTContext &Ctx) {
  return flowOf(Modes, Cfgs, Ctx);
}

} // namespace torchlint
