//===--- StepContext.h - Whether code runs on every step --------*- C++ -*-===//
//
// A cost repeats when it runs on every step of a training or inference loop.
// Real programs seldom put the step in the loop's own body: the loop calls
// `train_step(batch)`, `detector.detect(frame)` or `policy->act(obs)`, which
// runs the model, perhaps in another unit; and an operation sits in a helper
// whose nearest loop is a local one (per box, per parameter) while the helper
// is called from the step loop. This analysis answers both questions through
// calls, and across units with the summary pass: which functions do step work
// (`StepWork`), and which are called on every step.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_STEPCONTEXT_H
#define TORCHLINT_ANALYSIS_STEPCONTEXT_H

#include "analysis/Loops.h"
#include "analysis/Summaries.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <set>
#include <string>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace torchlint {

class AutocastFlow;
class DeviceFlow;
class GradModeFlow;
class UnitIndex;
class UserCode;

class StepContext {
public:
  /// Flow names functions across units (and is asked where a call runs).
  StepContext(clang::ASTContext &Ctx, const UserCode &Code, DeviceFlow &Flow);

  clang::ASTContext &astContext() const { return Ctx; }

  /// What the other units tell of their functions; set before the first
  /// question (null for a unit on its own).
  void importSummaries(const ImportedSummaries *Given) { Imports = Given; }

  /// What a call of Function does of a step: its body's module runs,
  /// backward passes and optimizer steps, and those of the functions it
  /// calls, in this unit or (by their summaries) in others.
  StepWork workOf(const clang::FunctionDecl *Function);

  /// What one iteration of Loop does: a step when its body (not a loop
  /// nested in it) does step work itself or through a call.
  LoopRole roleOf(const clang::Stmt *Loop);

  /// The step loop that runs Loop's body on each of its iterations: Loop
  /// itself, or the nearest loop around it that is one, through loops that
  /// do no step work (a loop over the boxes of a frame). Null when an epoch
  /// loop, or nothing, comes first.
  const clang::Stmt *stepLoopAround(const clang::Stmt *Loop);

  /// How a statement comes to run on every step.
  struct PerStep {
    /// The step loop in this unit; null when another unit's loop calls the
    /// function on every step.
    const clang::Stmt *Loop = nullptr;
    /// The call in Loop that leads to the statement; null when the statement
    /// is in Loop's own function.
    const clang::Stmt *Call = nullptr;
    bool Reached = false;
    explicit operator bool() const { return Reached; }
  };
  /// S runs on every step: a step loop of its function runs it (through
  /// loops that do no step work of their own), or it is in no epoch loop and
  /// its function is called on every step.
  PerStep perStepAt(const clang::Stmt *S);
  /// Function is called on every step: some call of it in this unit runs on
  /// every step (perStepAt), or another unit calls it so.
  PerStep perStepThroughCallers(const clang::FunctionDecl *Function);

  /// Every call of Function from other units runs with autograd off (at
  /// the call, or through the callers' own callers); nullopt without their
  /// summaries.
  std::optional<bool> gradOffInCallersElsewhere(const clang::FunctionDecl *F);

  /// Where some call of F from another unit runs with autocast on (turned
  /// on there, or by that caller's own callers); nullopt where none does or
  /// without their summaries.
  std::optional<Span>
  autocastOnInCallersElsewhere(const clang::FunctionDecl *F);

  /// Some function of this unit runs a backward pass or an optimizer step.
  bool unitTrains();
  /// This unit, or another of the same program, trains; nullopt without the
  /// other units' summaries.
  std::optional<bool> programTrains();
  /// Where this unit asks for CUDA (CudaUse.h), or null.
  const clang::Stmt *unitCudaUse();
  /// This unit, or another of the same program, asks for CUDA; nullopt
  /// without the other units' summaries.
  std::optional<bool> programUsesCuda();
  /// This unit, or another of the same program, sets cuDNN's benchmark mode
  /// (`setBenchmarkCuDNN`, to either value); nullopt without the other
  /// units' summaries.
  std::optional<bool> programDecidesCudnnBenchmark();

  /// Adds what this unit tells the others: the step work of its functions,
  /// the functions of other units it calls (per step, and whether autograd
  /// records and autocast is on there, which Recording and Autocast tell),
  /// and what it asked.
  void summarize(UnitSummary &Into, GradModeFlow &Recording,
                 AutocastFlow &Autocast);

private:
  /// Some function of this unit makes a call Wanted accepts.
  bool
  unitCalls(llvm::function_ref<bool(const clang::CallExpr *)> Wanted) const;
  bool unitDecidesCudnnBenchmark();
  StepWork findWork(const clang::Stmt *S, int Nesting);
  StepWork bodyWork(const clang::FunctionDecl *Definition);
  /// The step work of a call's callee, where its definition is in this unit
  /// or its summary in another; None for calls that are not the program's.
  StepWork calleeWork(const clang::CallExpr *Call);
  /// The call runs on every step: in a step loop of its function, or in a
  /// function called per step (and no epoch loop between).
  PerStep callRunsPerStep(const clang::Stmt *S,
                          const clang::FunctionDecl *Caller);

  clang::ASTContext &Ctx;
  const UserCode &Code;
  DeviceFlow &Flow;
  UnitIndex &Index;
  const ImportedSummaries *Imports = nullptr;

  llvm::DenseMap<const clang::FunctionDecl *, StepWork> Work;
  llvm::DenseSet<const clang::FunctionDecl *> WorkInProgress;
  llvm::DenseMap<const clang::FunctionDecl *, PerStep> Callers;
  llvm::DenseSet<const clang::FunctionDecl *> CallersInProgress;
  llvm::DenseMap<const clang::Stmt *, LoopRole> Roles;
  std::set<std::string> AskedWork;
  std::set<std::string> AskedPerStep;
  std::set<std::string> AskedGrad;
  std::set<std::string> AskedAutocast;
  bool AskedTraining = false;
  std::optional<bool> Trains;
  bool AskedCuda = false;
  std::optional<const clang::Stmt *> CudaUse;
  std::optional<bool> DecidesCudnnBenchmark;
  bool AskedCudnnBenchmark = false;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_STEPCONTEXT_H
