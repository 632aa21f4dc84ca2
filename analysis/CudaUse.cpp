#include "analysis/CudaUse.h"

#include "core/UserCode.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringRef.h"

using namespace clang;

namespace torchlint {
namespace {

bool namesCudaDevice(llvm::StringRef Text) {
  if (Text == "cuda")
    return true;
  if (!Text.consume_front("cuda:") || Text.empty())
    return false;
  return llvm::all_of(Text, [](char C) { return C >= '0' && C <= '9'; });
}

bool inCudaNamespace(const FunctionDecl *FD) {
  std::string Name = FD->getQualifiedNameAsString();
  llvm::StringRef Ref(Name);
  return Ref.starts_with("torch::cuda::") || Ref.starts_with("at::cuda::") ||
         Ref.starts_with("c10::cuda::");
}

class CudaUseFinder : public RecursiveASTVisitor<CudaUseFinder> {
public:
  CudaUseFinder(ASTContext &Ctx, const UserCode &Code) : Ctx(Ctx), Code(Code) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseDecl(Decl *D) {
    if (Found)
      return false;
    if (D && !isa<TranslationUnitDecl>(D) && !isa<NamespaceDecl>(D) &&
        !isa<LinkageSpecDecl>(D) &&
        !Code.isAnalyzed(D->getLocation(), Ctx.getSourceManager()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (const FunctionDecl *FD = Call->getDirectCallee()) {
      if (inCudaNamespace(FD))
        Found = Call;
      else if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
               MD && MD->getIdentifier() && MD->getName() == "cuda" &&
               (api::isTensorMethod(MD) || api::isModuleClass(MD->getParent())))
        Found = Call;
    }
    return !Found;
  }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    const ValueDecl *D = Ref->getDecl();
    if (D->getIdentifier() &&
        (D->getName() == "kCUDA" ||
         (D->getName() == "CUDA" && isa<EnumConstantDecl>(D))) &&
        api::isInTorchNamespace(D))
      Found = Ref;
    return !Found;
  }
  bool VisitStringLiteral(StringLiteral *Literal) {
    if (Literal->getCharByteWidth() == 1 &&
        namesCudaDevice(Literal->getString()))
      Found = Literal;
    return !Found;
  }

  const Stmt *Found = nullptr;

private:
  ASTContext &Ctx;
  const UserCode &Code;
};

} // namespace

const Stmt *firstCudaUse(ASTContext &Ctx, const UserCode &Code) {
  CudaUseFinder Finder(Ctx, Code);
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
  return Finder.Found;
}

} // namespace torchlint
