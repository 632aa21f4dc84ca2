#include "analysis/ModuleLayers.h"

#include "matchers/TorchApi.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace torchlint {

namespace {
/// Calls Visit on every expression of a module's constructors or of an
/// expression that builds a module (a Sequential's arguments) until it
/// returns true.
template <typename Visitor>
class ExpressionWalker : public RecursiveASTVisitor<ExpressionWalker<Visitor>> {
public:
  explicit ExpressionWalker(Visitor Visit) : Visit(Visit) {}
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitExpr(Expr *E) { return !Visit(E); }

private:
  Visitor Visit;
};
} // namespace

const CXXRecordDecl *
ModuleLayers::inCode(const Stmt *Code, const Decl *Declaration, LayerKind Is) {
  const CXXRecordDecl *Found = nullptr;
  auto Visit = [&](const Expr *E) {
    if (!E->isTypeDependent())
      Found = inClass(api::moduleClassOf(E->getType()), Is);
    return Found != nullptr;
  };
  ExpressionWalker<decltype(Visit)> Walker(Visit);
  if (Code)
    Walker.TraverseStmt(const_cast<Stmt *>(Code));
  else
    Walker.TraverseDecl(const_cast<Decl *>(Declaration));
  return Found;
}

const CXXRecordDecl *ModuleLayers::inClass(const CXXRecordDecl *Impl,
                                           LayerKind Is) {
  if (!Impl)
    return nullptr;
  if (api::isInTorchNamespace(Impl))
    return Is(Impl) ? Impl : nullptr;
  if (!Impl->hasDefinition())
    return nullptr;
  auto [Entry, New] = Searched.try_emplace({Impl, Is}, nullptr);
  if (!New)
    return Entry->second;
  const CXXRecordDecl *Found = nullptr;
  for (const FieldDecl *Field : Impl->fields()) {
    if ((Found = inClass(api::moduleClassOf(Field->getType()), Is)))
      break;
    // A container member filled where it is declared:
    // `torch::nn::Sequential features{torch::nn::Conv2d(...), ...};`.
    if (const Expr *Init = Field->getInClassInitializer())
      if ((Found = inCode(Init, nullptr, Is)))
        break;
  }
  if (!Found)
    for (const CXXConstructorDecl *Ctor : Impl->ctors())
      if ((Found = inCode(nullptr, Ctor, Is)))
        break;
  // The map may have grown meanwhile: look the entry up again.
  Searched[{Impl, Is}] = Found;
  return Found;
}

const CXXRecordDecl *ModuleLayers::find(const Expr *ModuleExpr, LayerKind Is) {
  if (!ModuleExpr)
    return nullptr;
  if (const CXXRecordDecl *Layer =
          inClass(api::moduleClassOf(ModuleExpr->getType()), Is))
    return Layer;
  const auto *Ref =
      dyn_cast_or_null<DeclRefExpr>(api::ignoreWrappers(ModuleExpr));
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->getInit())
    return nullptr;
  return inCode(Var->getInit(), nullptr, Is);
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

bool isCudnnLayer(const CXXRecordDecl *Layer) {
  llvm::StringRef Name = layerName(Layer);
  return Name.starts_with("Conv") || Name.starts_with("BatchNorm") ||
         llvm::StringSwitch<bool>(Name)
             .Cases("LSTM", "GRU", "RNN", true)
             .Default(false);
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
