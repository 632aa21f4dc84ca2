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
class CXXForRangeStmt;
class Expr;
class FunctionDecl;
class Stmt;
class VarDecl;
} // namespace clang

namespace torchlint {

class DeviceFlow;
class StepContext;
class UserCode;

/// The range-for that declares Var as its loop variable, or null.
const clang::CXXForRangeStmt *rangeForDeclaring(const clang::VarDecl *Var,
                                                clang::ASTContext &Ctx);

/// Loop's body always ends in a `break` or a `return`: it runs once (a
/// smoke test that stops after its first batch).
bool stopsAfterFirstPass(const clang::Stmt *Loop);

/// The innermost loop of S's function (for, range-for, while, do) that runs
/// S on every iteration: S is in its body, condition or increment, not in a
/// range-for's range or a for's init. Null when there is none.
const clang::Stmt *enclosingLoop(const clang::Stmt *S, clang::ASTContext &Ctx);

/// Where S repeats: a loop around it, or a loop around a call of its function
/// (through a few calls); or, where Steps is given, a step loop that calls
/// its function, in this unit through any number of calls or in another.
struct Repetition {
  /// The loop; null when it is in another unit.
  const clang::Stmt *Loop = nullptr;
  /// The call, in the loop, that leads to S; null when the loop is in S's own
  /// function or in another unit.
  const clang::Stmt *Call = nullptr;
  /// Another unit calls S's function on every step.
  bool Elsewhere = false;
  explicit operator bool() const { return Loop != nullptr || Elsewhere; }
};
Repetition repetitionOf(const clang::Stmt *S, DeviceFlow &Flow,
                        StepContext *Steps = nullptr);

/// What one step of Repeated runs, to count the work beside S: the loop
/// when S is in it, else the body of S's function, which the loop calls.
const clang::Stmt *stepOf(const Repetition &Repeated, const clang::Stmt *S,
                          DeviceFlow &Flow);

/// What one iteration of a loop does for training or evaluation
/// (StepContext::roleOf tells, through calls).
enum class LoopRole {
  Other, ///< no module, backward() or optimizer step in sight
  Step,  ///< its body runs a module, backward() or an optimizer step
  Epoch, ///< only loops nested in it do: it runs once per epoch
};

/// The backward() that S runs on every iteration of a training loop: S
/// itself, a backward() call inside a loop; or, when S calls a user function
/// (through Depth more calls), a backward() in it, where the call or the
/// backward() is inside a loop. Null when S trains nothing repeatedly.
const clang::CallExpr *repeatedBackward(const clang::Stmt *S,
                                        clang::ASTContext &Ctx,
                                        const UserCode &Code,
                                        unsigned Depth = 2);

/// Calls Visit(Parent, Child) for each statement above S, through
/// declarations, up to Loop included; true as soon as Visit returns true.
bool walkUpTo(const clang::Stmt *S, const clang::Stmt *Loop,
              clang::ASTContext &Ctx,
              llvm::function_ref<bool(const clang::Stmt *Parent,
                                      const clang::Stmt *Child)>
                  Visit);

/// A branch of an if, a switch or a `?:` lies between S and its function's
/// body: whether S runs is a run-time choice (a debug flag, an option).
bool inBranch(const clang::Stmt *S, clang::ASTContext &Ctx);

/// A branch between S and Loop runs only on some iterations: a condition
/// with `%` (`if (i % 100 == 0)`), the logging interval of a training loop,
/// or one that compares a counter of the loop for equality (`if (i == 0)`,
/// the first or the last iteration). With Loop null, up to S's function.
bool inPeriodicBranch(const clang::Stmt *S, const clang::Stmt *Loop,
                      clang::ASTContext &Ctx);

/// S is evaluated for a condition (if, while, ?:, a loop's condition, a
/// break decided by it) between S and Loop: its value steers control flow.
bool decidesControlFlow(const clang::Stmt *S, const clang::Stmt *Loop,
                        clang::ASTContext &Ctx);

/// S's value decides whether Loop goes on: it is Loop's condition, or the
/// condition of a branch that leaves Loop (break, return, goto), directly or
/// through a variable it initializes. A loop that decodes until an end token
/// or iterates until it converges cannot run its next iteration without it.
bool decidesLoopExit(const clang::Stmt *S, const clang::Stmt *Loop,
                     clang::ASTContext &Ctx);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_LOOPS_H
