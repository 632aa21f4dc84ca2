//===--- ModuleLayers.h - Which layers a module holds -----------*- C++ -*-===//
//
// Rules about GPU work ask what a module computes: convolutions (cuDNN's
// autotuner), matrix products (tensor cores). A module's layers are in its
// class (the fields it registers, what its constructors build, and so on
// through the classes of those modules) or, for a generic container such as
// Sequential, in the expression that fills it. A transformer's classes are
// reached from many places (each block holds the blocks before it), so each
// class is searched once per unit and kind.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_MODULELAYERS_H
#define TORCHLINT_ANALYSIS_MODULELAYERS_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <utility>

namespace clang {
class ASTContext;
class CXXRecordDecl;
class Decl;
class Expr;
class Stmt;
} // namespace clang

namespace torchlint {

/// Tells whether a libtorch layer class (torch::nn::LinearImpl, ...) is of
/// the kind asked for.
using LayerKind = bool (*)(const clang::CXXRecordDecl *);

class ModuleLayers {
public:
  explicit ModuleLayers(clang::ASTContext &Ctx) : Ctx(Ctx) {}
  clang::ASTContext &astContext() const { return Ctx; }

  /// The first libtorch layer of the kind that the module ModuleExpr gives
  /// access to holds, or null.
  const clang::CXXRecordDecl *find(const clang::Expr *ModuleExpr, LayerKind Is);

private:
  const clang::CXXRecordDecl *inClass(const clang::CXXRecordDecl *Impl,
                                      LayerKind Is);
  /// In the expressions of Code, or else of Declaration.
  const clang::CXXRecordDecl *
  inCode(const clang::Stmt *Code, const clang::Decl *Declaration, LayerKind Is);

  clang::ASTContext &Ctx;
  /// Each class's answer; null while it is being searched, so that a class
  /// reached again through itself ends the search there.
  llvm::DenseMap<std::pair<const clang::CXXRecordDecl *, LayerKind>,
                 const clang::CXXRecordDecl *>
      Searched;
};

/// The name a layer class has in the C++ API: "Linear" for LinearImpl;
/// empty for a class outside libtorch.
llvm::StringRef layerName(const clang::CXXRecordDecl *Layer);

/// Conv1d, Conv2d, Conv3d and their transposed forms.
bool isConvolutionLayer(const clang::CXXRecordDecl *Layer);

/// A layer whose CUDA kernels come from cuDNN: convolutions, recurrent
/// layers (RNN, LSTM, GRU) and batch normalization.
bool isCudnnLayer(const clang::CXXRecordDecl *Layer);

/// A layer whose work is matrix products, which tensor cores run in lower
/// precision: Linear, Bilinear, convolutions, attention, transformers and
/// recurrent layers.
bool isMatrixLayer(const clang::CXXRecordDecl *Layer);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_MODULELAYERS_H
