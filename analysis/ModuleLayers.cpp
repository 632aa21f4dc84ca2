#include "analysis/ModuleLayers.h"

#include "api/TorchApi.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace torchlint {

namespace {
constexpr unsigned MaxDepth = 4;

const CXXRecordDecl *layerIn(const CXXRecordDecl *Impl, LayerKind Is,
                             unsigned Depth);

/// Finds, in a module's constructors or in an expression that builds a
/// module (a Sequential's arguments), a layer of the kind.
class LayerFinder : public RecursiveASTVisitor<LayerFinder> {
public:
  LayerFinder(LayerKind Is, unsigned Depth) : Is(Is), Depth(Depth) {}
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitExpr(Expr *E) {
    if (!E->isTypeDependent())
      Found = layerIn(api::moduleClassOf(E->getType()), Is, Depth + 1);
    return !Found;
  }
  const CXXRecordDecl *Found = nullptr;

private:
  LayerKind Is;
  unsigned Depth;
};

const CXXRecordDecl *layerIn(const CXXRecordDecl *Impl, LayerKind Is,
                             unsigned Depth) {
  if (!Impl || Depth > MaxDepth)
    return nullptr;
  if (api::isInTorchNamespace(Impl))
    return Is(Impl) ? Impl : nullptr;
  if (!Impl->hasDefinition())
    return nullptr;
  for (const FieldDecl *Field : Impl->fields()) {
    if (const CXXRecordDecl *Layer =
            layerIn(api::moduleClassOf(Field->getType()), Is, Depth + 1))
      return Layer;
    // A container member filled where it is declared:
    // `torch::nn::Sequential features{torch::nn::Conv2d(...), ...};`.
    if (const Expr *Init = Field->getInClassInitializer()) {
      LayerFinder Finder(Is, Depth);
      Finder.TraverseStmt(const_cast<Expr *>(Init));
      if (Finder.Found)
        return Finder.Found;
    }
  }
  for (const CXXConstructorDecl *Ctor : Impl->ctors()) {
    LayerFinder Finder(Is, Depth);
    Finder.TraverseDecl(const_cast<CXXConstructorDecl *>(Ctor));
    if (Finder.Found)
      return Finder.Found;
  }
  return nullptr;
}

} // namespace

const CXXRecordDecl *findLayer(const Expr *ModuleExpr, LayerKind Is) {
  if (!ModuleExpr)
    return nullptr;
  if (const CXXRecordDecl *Layer =
          layerIn(api::moduleClassOf(ModuleExpr->getType()), Is, 0))
    return Layer;
  const auto *Ref =
      dyn_cast_or_null<DeclRefExpr>(api::ignoreWrappers(ModuleExpr));
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->getInit())
    return nullptr;
  LayerFinder Finder(Is, 0);
  Finder.TraverseStmt(const_cast<Expr *>(Var->getInit()));
  return Finder.Found;
}

llvm::StringRef layerName(const CXXRecordDecl *Layer) {
  if (!Layer || !api::isInTorchNamespace(Layer) ||
      !Layer->getDeclName().isIdentifier())
    return "";
  llvm::StringRef Name = Layer->getName();
  Name.consume_back("Impl");
  return Name;
}
bool isConvolutionLayer(const CXXRecordDecl *Layer) {
  return layerName(Layer).starts_with("Conv");
}

bool isMatrixLayer(const CXXRecordDecl *Layer) {
  llvm::StringRef Name = layerName(Layer);
  return Name.starts_with("Conv") || Name.starts_with("Transformer") ||
         llvm::StringSwitch<bool>(Name)
             .Cases("Linear", "Bilinear", "MultiheadAttention", true)
             .Cases("LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell",
                    true)
             .Default(false);
}

} // namespace torchlint
