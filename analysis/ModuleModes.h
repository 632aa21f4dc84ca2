//===--- ModuleModes.h - Training or evaluation mode, by path ---*- C++ -*-===//
//
// `model->eval()` and `model->train()` set a mode that holds until the next
// switch: which one is in effect at a call depends on the paths that reach
// it, and what runs after the call on the way to the next switch to training
// says whether its graph is used. Both are answered here on the function's
// CFG, for the evaluation rule, module by module: a module is named by the
// variable or member it is reached through (`model`, `this->encoder`,
// `model->encoder`), a switch of a module switches its submodules too, and a
// switch of a module reached some other way counts for every module.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_MODULEMODES_H
#define TORCHLINT_ANALYSIS_MODULEMODES_H

#include "analysis/ForwardFlow.h"
#include "analysis/FunctionCfg.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>

namespace clang {
class ASTContext;
class CXXMemberCallExpr;
class Decl;
class Expr;
class Stmt;
} // namespace clang

namespace torchlint {

/// The modes the switches on the paths to a statement may have left.
struct ModuleMode {
  /// No switch on some path.
  bool MayBeUndecided = false;
  bool MayBeTraining = false;
  bool MayBeEvaluation = false;
  /// A switch to evaluation that some path ends with, for the message.
  const clang::CXXMemberCallExpr *Evaluation = nullptr;

  bool operator==(const ModuleMode &O) const {
    return MayBeUndecided == O.MayBeUndecided &&
           MayBeTraining == O.MayBeTraining &&
           MayBeEvaluation == O.MayBeEvaluation && Evaluation == O.Evaluation;
  }
};

/// How a module is reached: the variable, then each member on the way
/// (`model->encoder`: model, encoder); empty when it is not reached through
/// variables and members alone.
using ModulePath = llvm::SmallVector<const clang::Decl *, 2>;
ModulePath modulePathOf(const clang::Expr *Module);

/// The switch of a module's mode that Call makes: true for evaluation
/// (`eval()`, `train(false)`), false for training; nullopt when Call is none.
std::optional<bool> switchesToEvaluation(const clang::CXXMemberCallExpr *Call,
                                         clang::ASTContext &Ctx);

class ModuleModes {
public:
  ModuleModes(clang::ASTContext &Ctx, FunctionCfgCache &Cfgs);
  ~ModuleModes();

  /// The modes of Module (an expression naming it) right before S, from S's
  /// function: what its own switches, its parents' and those of modules
  /// reached otherwise left; training when one of its submodules may have
  /// been switched to training. Nullopt when S is in no function with a
  /// CFG, or on no path from its entry.
  std::optional<ModuleMode> before(const clang::Stmt *S,
                                   const clang::Expr *Module);

  /// Whether some path from right after S reaches a statement for which
  /// Needs is true before it passes a switch of Module (or of a module it
  /// is part of, or has as a part, or reached otherwise) to training
  /// (around loops too: what runs before S runs again after it). Nullopt
  /// when S is in no function with a CFG.
  std::optional<bool>
  reachesBeforeTraining(const clang::Stmt *S, const clang::Expr *Module,
                        llvm::function_ref<bool(const clang::Stmt *)> Needs);

  clang::ASTContext &astContext() const { return Ctx; }

  struct Lattice;

private:
  clang::ASTContext &Ctx;
  FunctionCfgCache &Cfgs;
  FunctionFlows<Lattice> Flows;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_MODULEMODES_H
