#include "rules/HalfModelTrainingCheck.h"

#include "common/Scenarios.h"

#include "analysis/DeviceFlow.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo HalfModelTrainingCheck::Info = {
    "torch-half-model-training",
    "HalfModelTraining",
    "an optimizer steps the float16 weights of a module",
    Level::Warning,
    /*OffersFixIts=*/false,
    "correctness,mixed-precision,gpu,libtorch",
    "high",
};

namespace {
/// The variable, parameter or member an expression names.
const ValueDecl *referencedDecl(const Expr *E) {
  E = api::ignoreWrappers(api::withoutArrow(E));
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(E))
    return Member->getMemberDecl();
  return nullptr;
}

bool convertsToHalf(const CXXMemberCallExpr *Call) {
  if (!api::isModuleTo(Call->getMethodDecl()))
    return false;
  return llvm::any_of(Call->arguments(), [](const Expr *Arg) {
    return api::isScalarType(Arg->getType()) &&
           api::scalarTypeName(Arg) == "float16";
  });
}

/// The modules whose parameters() an optimizer's arguments hold.
class ParametersFinder : public RecursiveASTVisitor<ParametersFinder> {
public:
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    if (api::isModuleMethod(Call->getMethodDecl(), "parameters"))
      if (const ValueDecl *Module =
              referencedDecl(Call->getImplicitObjectArgument()))
        Modules.push_back(Module);
    return true;
  }
  std::vector<const ValueDecl *> Modules;
};

auto optimizerConstruction() {
  return cxxConstructExpr(hasDeclaration(cxxConstructorDecl(ofClass(
                              isDerivedFrom("::torch::optim::Optimizer")))))
      .bind("optimizer");
}
} // namespace

void HalfModelTrainingCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName("to", "step"))))
          .bind("call"),
      this);
  Finder->addMatcher(
      varDecl(hasInitializer(ignoringImplicit(optimizerConstruction())))
          .bind("variable"),
      this);
  Finder->addMatcher(cxxCtorInitializer(forField(fieldDecl().bind("variable")),
                                        withInitializer(ignoringImplicit(
                                            optimizerConstruction()))),
                     this);
}

void HalfModelTrainingCheck::check(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  // Only the program's own code: libtorch's headers train nothing.
  const Decl *Declared = Result.Nodes.getNodeAs<Decl>("variable");
  const Stmt *Matched = Result.Nodes.getNodeAs<Stmt>("call");
  SourceLocation Loc =
      Matched ? Matched->getBeginLoc()
              : (Declared ? Declared->getLocation() : SourceLocation());
  if (!context().userCode().isAnalyzed(Loc, Ctx->getSourceManager()))
    return;
  if (const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("call")) {
    if (convertsToHalf(Call)) {
      if (const ValueDecl *Module =
              referencedDecl(Call->getImplicitObjectArgument()))
        Conversions.push_back({Call, Module});
    } else if (api::isOptimizerCall(Call) &&
               Call->getMethodDecl()->getName() == "step") {
      if (const ValueDecl *Optimizer =
              referencedDecl(Call->getImplicitObjectArgument()))
        Steps.push_back({Call, Optimizer});
    }
    return;
  }
  const auto *Construction =
      Result.Nodes.getNodeAs<CXXConstructExpr>("optimizer");
  const auto *Variable = Result.Nodes.getNodeAs<ValueDecl>("variable");
  if (!Construction || !Variable)
    return;
  ParametersFinder Parameters;
  Parameters.TraverseStmt(const_cast<CXXConstructExpr *>(Construction));
  if (!Parameters.Modules.empty())
    Optimizers.push_back({Construction, Variable, Parameters.Modules});
}

void HalfModelTrainingCheck::onEndOfTranslationUnit() {
  if (Ctx && !Conversions.empty()) {
    DeviceFlow &Flow = context().deviceFlow(*Ctx);
    // A function parameter stands for the arguments its callers pass.
    auto Stands = [&](const ValueDecl *Used, const ValueDecl *Declared) {
      if (Used == Declared)
        return true;
      const auto *Param = dyn_cast<ParmVarDecl>(Used);
      const auto *Function =
          Param ? dyn_cast<FunctionDecl>(Param->getDeclContext()) : nullptr;
      if (!Function)
        return false;
      std::optional<llvm::ArrayRef<DeviceFlow::CallSite>> Sites =
          Flow.index().callSites(Function);
      if (!Sites)
        return false;
      unsigned Index = Param->getFunctionScopeIndex();
      return llvm::any_of(*Sites, [&](const DeviceFlow::CallSite &Site) {
        const auto *Call = dyn_cast<CallExpr>(Site.Call);
        if (const auto *Construct = dyn_cast<CXXConstructExpr>(Site.Call))
          return Index < Construct->getNumArgs() &&
                 referencedDecl(Construct->getArg(Index)) == Declared;
        unsigned Shift = isa_and_nonnull<CXXOperatorCallExpr>(Call) ? 1 : 0;
        return Call && Index + Shift < Call->getNumArgs() &&
               referencedDecl(Call->getArg(Index + Shift)) == Declared;
      });
    };
    for (const Conversion &Half : Conversions) {
      for (const Optimizer &Opt : Optimizers) {
        if (!llvm::any_of(Opt.Modules, [&](const ValueDecl *Module) {
              return Stands(Module, Half.Module) || Stands(Half.Module, Module);
            }))
          continue;
        auto Stepped = llvm::find_if(Steps, [&](const Step &S) {
          return Stands(S.Optimizer, Opt.Variable);
        });
        if (Stepped == Steps.end())
          continue;
        std::string Module = named(
            "module", api::withoutArrow(Half.To->getImplicitObjectArgument()),
            *Ctx);
        FindingBuilder Finding = report(
            *Ctx, Half.To->getSourceRange(),
            Module + " is converted to float16 and an optimizer steps its "
                     "parameters, so an update smaller than about 1/2000 of "
                     "a weight rounds away and training stalls");
        Finding.remedy("keep the weights in float32 and compute in lower "
                       "precision under autocast");
        Finding.note(Opt.Construction->getSourceRange(),
                     "the optimizer is given its parameters here");
        Finding.note(Stepped->Call->getSourceRange(), "and steps them here");
        const CXXRecordDecl *Class =
            Opt.Construction->getConstructor()->getParent();
        nlohmann::json Rate =
            Opt.Construction->getNumArgs() > 1
                ? recipe::constantValue(Opt.Construction->getArg(1), *Ctx)
                : nlohmann::json();
        Finding.recipe(
            {{"scenario", scenario::HalfModelTraining},
             {"dtype", "float16"},
             {"module",
              recipe::describeModule(
                  api::withoutArrow(Half.To->getImplicitObjectArgument()),
                  nullptr, *Ctx)},
             {"optimizer", Class->getNameAsString()},
             {"learning_rate", Rate.is_number() ? Rate : nlohmann::json()}});
        break;
      }
    }
  }
  Conversions.clear();
  Optimizers.clear();
  Steps.clear();
}

} // namespace torchlint
