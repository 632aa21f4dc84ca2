#include "analysis/AnalysisContext.h"

#include "analysis/AutocastFlow.h"
#include "analysis/DeviceFlow.h"

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

AutocastFlow &AnalysisContext::autocastFlow(ASTContext &Ctx) {
  if (!Autocast || &Autocast->astContext() != &Ctx)
    Autocast = std::make_unique<AutocastFlow>(Ctx);
  return *Autocast;
}

} // namespace torchlint
