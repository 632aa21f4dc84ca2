//===--- Loops.h - Code that runs on every step --------------------*- C++
//-*-===//
//
// Costs that rules report matter when they repeat: a copy or a sync in the
// body of a training loop, or in a function that such a loop calls. These
// helpers find the loop that makes a statement repeat.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_MATCHERS_LOOPS_H
#define TORCHLINT_MATCHERS_LOOPS_H

namespace clang {
class ASTContext;
class Expr;
class Stmt;
} // namespace clang

namespace torchlint {

class DeviceFlow;

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

} // namespace torchlint

#endif // TORCHLINT_MATCHERS_LOOPS_H
