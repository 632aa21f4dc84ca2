//===--- GraphUses.h - Does anything need a result's graph ------*- C++ -*-===//
//
// A forward pass records its graph for whoever runs backward() on what it
// computes. When every value computed from a result is only saved, printed,
// read as a number or dropped, nobody can: the graph, and the activations it
// keeps, are built for nothing, whatever else the function trains. This
// follows the result through the operations, modules and local variables of
// its function.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_GRAPHUSES_H
#define TORCHLINT_ANALYSIS_GRAPHUSES_H

namespace clang {
class ASTContext;
class Expr;
} // namespace clang

namespace torchlint {

/// Something computed from Result may reach a backward pass, or code this
/// cannot follow: a call of a function that is not libtorch's, a return, a
/// store outside the function's locals, a lambda, a container. False only
/// when every use is known to keep no graph.
bool graphMayBeUsed(const clang::Expr *Result, clang::ASTContext &Ctx);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_GRAPHUSES_H
