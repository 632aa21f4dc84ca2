//===--- EnclosingBlocks.h - The blocks around a statement ------*- C++ -*-===//
//
// What a function has done before a statement (a guard declared, a mode
// switched, autocast turned on) is read from the statements before it in
// each block around it; a fix-it that adds a line needs the statement of a
// block that holds it. Both walk out from the statement through its parents
// the same way: through a local variable's initialiser, never out of a lambda.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_ENCLOSINGBLOCKS_H
#define TORCHLINT_ANALYSIS_ENCLOSINGBLOCKS_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang {
class ASTContext;
class CompoundStmt;
class Stmt;
} // namespace clang

namespace torchlint {

/// Calls Visit with each block that encloses S, innermost first, and the
/// statement of that block that holds S, until Visit returns true. Stops at
/// a lambda, at the function, or after MaxSteps parents.
void forEachEnclosingBlock(
    const clang::Stmt *S, clang::ASTContext &Ctx,
    llvm::function_ref<bool(const clang::CompoundStmt *Block,
                            const clang::Stmt *Child)>
        Visit,
    unsigned MaxSteps = 256);

/// The statement that holds S and is itself a statement of a block: where a
/// fix-it can add a line before or after it. Null inside a lambda, or when S
/// is the body of an if or a loop without braces.
const clang::Stmt *statementInBlock(const clang::Stmt *S,
                                    clang::ASTContext &Ctx);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_ENCLOSINGBLOCKS_H
