//===--- AnalysisContext.h - The shared analyses of one unit ----*- C++ -*-===//
//
// One per translation unit, in both shells: the user-code filter, the sink
// that receives findings and the options, and the shared analyses, built
// lazily on the first rule that asks and kept for the others.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_ANALYSISCONTEXT_H
#define TORCHLINT_ANALYSIS_ANALYSISCONTEXT_H

#include "core/FindingBuilder.h"
#include "core/RuleInfo.h"
#include "core/UserCode.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace clang {
class ASTContext;
class FunctionDecl;
class SourceLocation;
class SourceManager;
} // namespace clang

namespace torchlint {

class AutocastFlow;
class CodeWithErrors;
class DebugRegions;
class DeviceFlow;
class FunctionCfgCache;
class GradModeFlow;
struct ImportedSummaries;
class ModuleLayers;
class ModuleModes;
class StepContext;
class UnitIndex;
struct UnitSummary;

/// Per translation unit: the shared analyses, the user-code filter and the
/// sink. Analyses are built lazily, on the first rule that asks.
class AnalysisContext {
public:
  AnalysisContext(const UserCode &Code, FindingSink &Sink,
                  const RuleOptions *Options = nullptr);
  ~AnalysisContext();

  const UserCode &userCode() const { return Code; }
  /// Where rules report: the shell's sink, less the findings already
  /// reported in this unit (the same rule, place and message, as two
  /// matchers or two instantiations may give), in either shell.
  FindingSink &sink() { return Distinct; }
  const RuleOptions *options() const { return Options; }

  /// How many times each flow may visit each block of a function before it
  /// gives up on it (and the sink hears which); set before any rule asks.
  void setFlowBudget(unsigned PerBlock) { FlowBudget = PerBlock; }

  /// What the other units of the program tell of theirs, for the device
  /// flow of a run with a GPU (the CLI's summary pass); set before any rule
  /// asks. A unit analyzed on its own (the plugin) has none.
  void importSummaries(const ImportedSummaries *Given) { Imports = Given; }

  /// The branches of conditional compilation that only debug builds take,
  /// as the shell's preprocessor recorded them during the parse; set before
  /// any rule asks.
  void useDebugRegions(const DebugRegions *Recorded) { Debug = Recorded; }
  /// Loc is in such a branch (`#ifndef NDEBUG`, `#ifdef DEBUG`).
  bool inDebugOnlyCode(clang::SourceLocation Loc,
                       const clang::SourceManager &SM) const;

  /// Loc is where clang recovered from a compile error of the unit: no rule
  /// reports there.
  bool inCodeWithErrors(clang::ASTContext &Ctx, clang::SourceLocation Loc);

  /// Who calls what in the unit.
  UnitIndex &unitIndex(clang::ASTContext &Ctx);
  /// The device flow of a run on a machine with a GPU.
  DeviceFlow &deviceFlow(clang::ASTContext &Ctx);
  /// The device flow of a run on a machine without one.
  DeviceFlow &deviceFlowWithoutGpu(clang::ASTContext &Ctx);
  /// Whether autocast is on, path by path, in each function.
  AutocastFlow &autocastFlow(clang::ASTContext &Ctx);
  /// The CFGs of the unit's functions, built once for every flow that asks.
  FunctionCfgCache &cfgs(clang::ASTContext &Ctx);
  /// Training or evaluation mode, path by path, in each function.
  ModuleModes &moduleModes(clang::ASTContext &Ctx);
  /// Whether autograd records, path by path, in each function.
  GradModeFlow &gradModeFlow(clang::ASTContext &Ctx);
  /// Which layers each module class holds.
  ModuleLayers &moduleLayers(clang::ASTContext &Ctx);
  /// Which functions do step work, and which run on every step, through
  /// calls and across units.
  StepContext &stepContext(clang::ASTContext &Ctx);

  /// What this unit tells the others of the program (after the rules ran).
  UnitSummary summarize(clang::ASTContext &Ctx);

private:
  class DistinctFindings : public FindingSink {
  public:
    explicit DistinctFindings(FindingSink &Next) : Next(Next) {}
    void consume(Finding F) override;
    void notice(const std::string &Message) override { Next.notice(Message); }

  private:
    FindingSink &Next;
    std::set<Finding> Seen;
  };

  const UserCode &Code;
  FindingSink &Sink;
  DistinctFindings Distinct;
  const RuleOptions *Options;
  unsigned FlowBudget;
  const ImportedSummaries *Imports = nullptr;
  const DebugRegions *Debug = nullptr;
  /// The functions each analysis gave up on, told once.
  std::set<std::pair<const clang::FunctionDecl *, std::string>> Overruns;
  /// Gives Cfgs this context's budget, and its overruns to the sink.
  void limit(FunctionCfgCache &Cfgs);
  std::unique_ptr<UnitIndex> Index;
  std::unique_ptr<CodeWithErrors> Errors;
  std::unique_ptr<DeviceFlow> WithGpu;
  std::unique_ptr<DeviceFlow> WithoutGpu;
  /// The CFGs the flows of AutocastFlow and ModuleModes run on, built once.
  std::unique_ptr<FunctionCfgCache> Cfgs;
  std::unique_ptr<AutocastFlow> Autocast;
  std::unique_ptr<ModuleModes> Modes;
  /// The CFGs with object lifetimes that GradModeFlow runs on.
  std::unique_ptr<FunctionCfgCache> LifetimeCfgs;
  std::unique_ptr<GradModeFlow> Recording;
  std::unique_ptr<ModuleLayers> Layers;
  std::unique_ptr<StepContext> Steps;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_ANALYSISCONTEXT_H
