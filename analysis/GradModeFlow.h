//===--- GradModeFlow.h - Whether autograd records, path by path -*- C++
//-*-===//
//
// Recording is a thread-wide switch: a guard object turns it off for as long
// as it lives and puts back what it found when it is destroyed, and
// torch::GradMode::set_enabled() changes it until the next change. Whether
// recording is off at a statement is then a fact of the paths that reach it,
// through branches, loops and the ends of scopes. This lattice follows it on
// the shared engine, on CFGs that show where local objects are destroyed.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_GRADMODEFLOW_H
#define TORCHLINT_ANALYSIS_GRADMODEFLOW_H

#include "analysis/ForwardFlow.h"
#include "analysis/FunctionCfg.h"
#include "analysis/GradMode.h"

namespace clang {
class ASTContext;
class Stmt;
} // namespace clang

namespace torchlint {

class GradModeFlow {
public:
  /// Cfgs must show object lifetimes (ObjectLifetimes::Shown).
  GradModeFlow(clang::ASTContext &Ctx, FunctionCfgCache &Cfgs);
  ~GradModeFlow();

  /// The setting in effect right before S, from S's function (a lambda's
  /// body is a function of its own). Paths that disagree, or on which only
  /// some decide, make a setting decided at run time: Enabled. Default when
  /// S is in no function with a CFG.
  GradSetting before(const clang::Stmt *S);

  clang::ASTContext &astContext() const { return Ctx; }

  struct Lattice;

private:
  clang::ASTContext &Ctx;
  FunctionCfgCache &Cfgs;
  FunctionFlows<Lattice> Flows;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_GRADMODEFLOW_H
