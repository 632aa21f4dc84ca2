//===--- Loops.h - Code that runs on every step --------------------*- C++
//-*-===//
//
// Costs that rules report matter when they repeat: a copy or a sync in the
// body of a training loop, or in a function that such a loop calls. These
// helpers find the loop that makes a statement repeat.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_LOOPS_H
#define TORCHLINT_ANALYSIS_LOOPS_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang {
class ASTContext;
class CallExpr;
class Expr;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace torchlint {

class DeviceFlow;
class UserCode;

/// The innermost loop of S's function (for, range-for, while, do) that runs
/// S on every iteration: S is in its body, condition or increment, not in a
/// range-for's range or a for's init. Null when there is none.
const clang::Stmt *enclosingLoop(const clang::Stmt *S, clang::ASTContext &Ctx);

/// Where S repeats: a loop around it, or a loop around a call of its function
/// (through a few calls).
struct Repetition {
  const clang::Stmt *Loop = nullptr;
  /// The call, in the loop, that leads to S; null when the loop is in S's own
  /// function.
  const clang::Expr *Call = nullptr;
  explicit operator bool() const { return Loop != nullptr; }
};
Repetition repetitionOf(const clang::Stmt *S, DeviceFlow &Flow);

/// What one iteration of a loop does for training or evaluation.
enum class LoopRole {
  Other, ///< no module, backward() or optimizer step in sight
  Step,  ///< its body runs a module, backward() or an optimizer step
  Epoch, ///< only loops nested in it do: it runs once per epoch
};
LoopRole roleOf(const clang::Stmt *Loop);

/// The training or evaluation step loop that runs Loop's body on each of its
/// iterations: Loop itself when it is one, else the nearest loop around it
/// that is, through loops that do no step work of their own (a loop over the
/// samples of a batch). Null when an epoch loop, or nothing, comes first.
const clang::Stmt *stepLoopAround(const clang::Stmt *Loop,
                                  clang::ASTContext &Ctx);

/// The backward() that S runs on every iteration of a training loop: S
/// itself, a backward() call inside a loop; or, when S calls a user function
/// (through Depth more calls), a backward() in it, where the call or the
/// backward() is inside a loop. Null when S trains nothing repeatedly.
const clang::CallExpr *repeatedBackward(const clang::Stmt *S,
                                        clang::ASTContext &Ctx,
                                        const UserCode &Code,
                                        unsigned Depth = 2);

/// Something in Function's body (outside loops) runs a module, backward() or
/// an optimizer step: a training or evaluation step when a loop calls it.
bool runsStep(const clang::FunctionDecl *Function);

/// Calls Visit(Parent, Child) for each statement above S, through
/// declarations, up to Loop included; true as soon as Visit returns true.
bool walkUpTo(const clang::Stmt *S, const clang::Stmt *Loop,
              clang::ASTContext &Ctx,
              llvm::function_ref<bool(const clang::Stmt *Parent,
                                      const clang::Stmt *Child)>
                  Visit);

/// A branch between S and Loop runs only on some iterations: a condition
/// with `%` (`if (i % 100 == 0)`), the logging interval of a training loop.
bool inPeriodicBranch(const clang::Stmt *S, const clang::Stmt *Loop,
                      clang::ASTContext &Ctx);

/// S is evaluated for a condition (if, while, ?:, a loop's condition, a
/// break decided by it) between S and Loop: its value steers control flow.
bool decidesControlFlow(const clang::Stmt *S, const clang::Stmt *Loop,
                        clang::ASTContext &Ctx);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_LOOPS_H
