//===--- CallsWithin.h - Calls below a statement, through the program -----===//
//
// Some facts hold once a call anywhere below a statement has run: CUDA has
// started, a convolution has run. They are looked for in the statement and
// in the bodies of the program's own functions it calls, a few levels down.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_CALLSWITHIN_H
#define TORCHLINT_ANALYSIS_CALLSWITHIN_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang {
class Expr;
class SourceManager;
class Stmt;
} // namespace clang

namespace torchlint {

class UserCode;

struct CallWithin {
  /// The call of S: the one Matches accepted, or the call of the program's
  /// function that leads to it.
  const clang::Expr *Call = nullptr;
  /// The call Matches accepted, in S or in a function S calls.
  const clang::Expr *Match = nullptr;
};

/// The first call (or construction) in S, in the order written, that Matches
/// accepts, also inside the program's functions S calls, Depth levels down.
/// Where Limit is valid, S's own calls that do not end before it are left
/// out. Nothing found: both null.
CallWithin findCallWithin(const clang::Stmt *S, unsigned Depth,
                          const UserCode &Code, const clang::SourceManager &SM,
                          llvm::function_ref<bool(const clang::Expr *)> Matches,
                          clang::SourceLocation Limit = {});

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_CALLSWITHIN_H
