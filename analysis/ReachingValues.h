//===--- ReachingValues.h - The values a local variable may hold -*- C++
//-*-===//
//
// "What was this tensor made from" is asked at one use of a local variable:
// the answer is the values its definitions (its initializer, `v = value`)
// give it on the CFG paths that reach the use, not the definition written
// last in the source.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_REACHINGVALUES_H
#define TORCHLINT_ANALYSIS_REACHINGVALUES_H

#include "analysis/FunctionCfg.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace clang {
class DeclRefExpr;
class Expr;
class FunctionDecl;
class Stmt;
class VarDecl;
} // namespace clang

namespace torchlint {

/// The values that reach Use as Var's value, found backwards along every CFG
/// path from Use to a definition of Var. Nullopt when Var is not a local
/// variable, when some path reaches the function's entry without a
/// definition, when a definition gives no value (a default-constructed
/// tensor), when Var may be written another way (bound to a non-const
/// reference or pointer, captured by reference), or when no CFG can be built.
std::optional<llvm::SmallVector<const clang::Expr *, 2>>
reachingValues(const clang::VarDecl *Var, const clang::Stmt *Use,
               FunctionCfgCache &Cfgs);

/// No statement of FD assigns Var, and nothing it is handed to may: a
/// parameter keeps the value its caller passed.
bool neverAssigned(const clang::VarDecl *Var, const clang::FunctionDecl *FD);

/// The expressions in Root that name Var, lambdas' bodies included, in the
/// order of the tree.
llvm::SmallVector<const clang::DeclRefExpr *, 8>
referencesTo(const clang::VarDecl *Var, const clang::Stmt *Root);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_REACHINGVALUES_H
