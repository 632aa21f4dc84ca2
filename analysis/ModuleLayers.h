//===--- ModuleLayers.h - Which layers a module holds -----------*- C++ -*-===//
//
// Rules about GPU work ask what a module computes: convolutions (cuDNN's
// autotuner), matrix products (tensor cores). A module's layers are in its
// class (the fields it registers, what its constructors build, a few levels
// deep) or, for a generic container such as Sequential, in the expression
// that fills it.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_MODULELAYERS_H
#define TORCHLINT_ANALYSIS_MODULELAYERS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace clang {
class CXXRecordDecl;
class Expr;
} // namespace clang

namespace torchlint {

/// Tells whether a libtorch layer class (torch::nn::LinearImpl, ...) is of
/// the kind asked for.
using LayerKind = llvm::function_ref<bool(const clang::CXXRecordDecl *)>;

/// The first libtorch layer of the kind that the module ModuleExpr gives
/// access to holds, or null.
const clang::CXXRecordDecl *findLayer(const clang::Expr *ModuleExpr,
                                      LayerKind Is);

/// The name a layer class has in the C++ API: "Linear" for LinearImpl;
/// empty for a class outside libtorch.
llvm::StringRef layerName(const clang::CXXRecordDecl *Layer);

/// Conv1d, Conv2d, Conv3d and their transposed forms.
bool isConvolutionLayer(const clang::CXXRecordDecl *Layer);

/// A layer whose work is matrix products, which tensor cores run in lower
/// precision: Linear, Bilinear, convolutions, attention, transformers and
/// recurrent layers.
bool isMatrixLayer(const clang::CXXRecordDecl *Layer);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_MODULELAYERS_H
