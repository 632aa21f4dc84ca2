#include "rules/DataParallelNotCloneableCheck.h"

#include "common/Scenarios.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo DataParallelNotCloneableCheck::Info = {
    "torch-data-parallel-not-cloneable",
    "DataParallelNotCloneable",
    "a module that cannot be cloned is handed to data_parallel or replicate",
    Level::Error,
    /*OffersFixIts=*/false,
    "correctness,libtorch",
    "high",
};

namespace {

/// The register_module, register_parameter and register_buffer calls in a
/// function's body and, for a constructor, its member initialisers.
std::vector<const CXXMemberCallExpr *>
registrationsIn(const FunctionDecl *Function) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
      if (!api::registrationName(Call).empty())
        Calls.push_back(Call);
      return true;
    }
    std::vector<const CXXMemberCallExpr *> Calls;
  } Visitor;
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Function))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isWritten())
        Visitor.TraverseStmt(Init->getInit());
  Visitor.TraverseStmt(Function->getBody());
  return Visitor.Calls;
}

/// The name a registration gives, when the source writes it as a literal.
std::optional<std::string> registeredName(const CXXMemberCallExpr *Call) {
  return Call->getNumArgs() ? api::literalText(Call->getArg(0)) : std::nullopt;
}

/// The class declares clone() itself, or a base of the program's between it
/// and torch::nn::Module does: it is the program's own copy.
bool declaresClone(const CXXRecordDecl *RD) {
  auto Declares = [](const CXXRecordDecl *Class) {
    if (api::isInTorchNamespace(Class))
      return false;
    for (const CXXMethodDecl *Method : Class->methods())
      if (Method->getDeclName().isIdentifier() && Method->getName() == "clone")
        return true;
    return false;
  };
  if (Declares(RD))
    return true;
  bool Found = false;
  RD->forallBases([&](const CXXRecordDecl *Base) {
    Found = Declares(Base);
    return !Found;
  });
  return Found;
}

/// The definition of the class's reset() in this unit, or null.
const FunctionDecl *resetOf(const CXXRecordDecl *RD) {
  for (const CXXMethodDecl *Method : RD->methods())
    if (Method->getDeclName().isIdentifier() && Method->getName() == "reset" &&
        Method->getNumParams() == 0)
      if (const FunctionDecl *Definition = Method->getDefinition())
        return Definition;
  return nullptr;
}

/// Why clone() throws for a module class.
struct CloneFailure {
  enum Kind {
    /// A torch::nn::Module subclass: Module::clone() throws.
    NotCloneable,
    /// A Cloneable whose constructor registers what reset() does not: the
    /// clone, rebuilt by reset() alone, has fewer members, and clone()
    /// throws on the count.
    RegistersOutsideReset,
  } How;
  /// The class whose clone() throws: the one handed over, or a submodule.
  const CXXRecordDecl *Class;
  /// RegistersOutsideReset: the constructor's registration.
  const CXXMemberCallExpr *Registration = nullptr;
  /// The register_module calls from the class handed over down to Class:
  /// Cloneable's clone() clones each registered submodule.
  std::vector<const CXXMemberCallExpr *> Through;
};

std::optional<CloneFailure>
cloneFailure(const CXXRecordDecl *RD,
             llvm::SmallPtrSetImpl<const CXXRecordDecl *> &Seen) {
  RD = RD ? RD->getDefinition() : nullptr;
  // libtorch's modules are all Cloneable; torch::nn::Module itself is a
  // static type only, whose dynamic class the unit does not show.
  if (!RD || api::isInTorchNamespace(RD) || !api::isModuleClass(RD) ||
      !Seen.insert(RD).second || declaresClone(RD))
    return std::nullopt;
  if (!api::isCloneableClass(RD))
    return CloneFailure{CloneFailure::NotCloneable, RD};

  const FunctionDecl *Reset = resetOf(RD);
  if (!Reset)
    return std::nullopt;
  std::vector<const CXXMemberCallExpr *> Rebuilt = registrationsIn(Reset);
  std::set<std::string> RebuiltNames;
  for (const CXXMemberCallExpr *Call : Rebuilt)
    if (std::optional<std::string> Name = registeredName(Call))
      RebuiltNames.insert(*Name);
  for (const CXXConstructorDecl *Ctor : RD->ctors()) {
    const FunctionDecl *Definition = Ctor->getDefinition();
    if (!Definition || Ctor->isCopyOrMoveConstructor())
      continue;
    for (const CXXMemberCallExpr *Call : registrationsIn(Definition)) {
      std::optional<std::string> Name = registeredName(Call);
      if (Name ? !RebuiltNames.count(*Name) : Rebuilt.empty())
        return CloneFailure{CloneFailure::RegistersOutsideReset, RD, Call};
    }
  }
  for (const CXXMemberCallExpr *Call : Rebuilt) {
    if (Call->getNumArgs() < 2 ||
        api::registrationName(Call) != "register_module")
      continue;
    std::optional<CloneFailure> Inner =
        cloneFailure(api::moduleClassOf(Call->getArg(1)->getType()), Seen);
    if (Inner) {
      Inner->Through.insert(Inner->Through.begin(), Call);
      return Inner;
    }
  }
  return std::nullopt;
}

std::string quotedName(const CXXRecordDecl *RD) {
  return "'" + RD->getNameAsString() + "'";
}

} // namespace

void DataParallelNotCloneableCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(
                                  "::torch::nn::parallel::data_parallel",
                                  "::torch::nn::parallel::replicate"))))
                         .bind("call"),
                     this);
}

void DataParallelNotCloneableCheck::check(
    const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  api::Replication Kind = api::replicationOf(Call);
  if (Kind == api::Replication::None)
    return;
  api::DeviceCount Devices = api::replicationDevices(Call);
  // On one device data_parallel runs the module as it is.
  if (Kind == api::Replication::DataParallel &&
      Devices == api::DeviceCount::One)
    return;
  const CXXRecordDecl *Handed =
      api::moduleClassOf(Call->getArg(0)->IgnoreImplicit()->getType());
  llvm::SmallPtrSet<const CXXRecordDecl *, 4> Seen;
  std::optional<CloneFailure> Failure = cloneFailure(Handed, Seen);
  if (!Failure)
    return;

  ASTContext &Ctx = *Result.Context;
  bool Replicate = Kind == api::Replication::Replicate;
  std::string Function = Replicate ? "replicate" : "data_parallel";
  std::string When = Replicate ? std::string()
                     : Devices == api::DeviceCount::AllVisible
                         ? " whenever more than one GPU is visible"
                         : " whenever it runs on more than one device";
  std::string Class = quotedName(Failure->Class);
  std::string Name = Failure->Class->getNameAsString();
  bool Submodule = !Failure->Through.empty();
  // A plain module inside a Cloneable is not cloned at all: its clone_()
  // does nothing, and the copy keeps the one its reset() built.
  std::string Message =
      Failure->How == CloneFailure::NotCloneable && Submodule
          ? "the clones " + Function + " makes of " + quotedName(Handed) +
                " get a new " + Class +
                " with fresh weights on the CPU instead of a copy of its "
                "submodule, so the replicas fail on their devices" +
                (When.empty() ? std::string() : When) +
                ", or compute with untrained weights"
          : (Submodule ? quotedName(Handed) + " (its submodule " + Class + ")"
                       : Class) +
                " cannot be cloned, so " + Function +
                ", which clones the module for each device, throws" + When;
  FindingBuilder Finding = report(Ctx, Call->getSourceRange(), Message);
  for (const CXXMemberCallExpr *Registration : Failure->Through)
    Finding.note(Registration->getSourceRange(),
                 "Cloneable's clone() clones the submodule registered here");
  if (Failure->How == CloneFailure::NotCloneable) {
    Finding.note(Failure->Class->getLocation(),
                 Submodule ? Class + " derives from torch::nn::Module, "
                                     "which copies nothing into a clone: only "
                                     "torch::nn::Cloneable does"
                           : Class + " derives from torch::nn::Module, whose "
                                     "clone() throws: only "
                                     "torch::nn::Cloneable implements it");
    Finding.remedy("derive " + Class + " from torch::nn::Cloneable<" + Name +
                   ">, move its register_* calls into 'void reset() "
                   "override', and call reset() from its constructor");
  } else {
    Finding.note(Failure->Registration->getSourceRange(),
                 Class + "'s constructor registers this, and its reset() "
                         "does not: the clone, rebuilt by reset() alone, "
                         "has fewer members, and clone() throws");
    Finding.remedy("move the register_* calls of " + Class +
                   "'s constructor into its reset(), and call reset() from "
                   "the constructor");
  }
  Finding.recipe({{"scenario", scenario::DataParallelNotCloneable},
                  {"call", Function},
                  {"kind", Failure->How == CloneFailure::NotCloneable
                               ? "not-cloneable"
                               : "registers-in-constructor"},
                  {"submodule", !Failure->Through.empty()}});
}

} // namespace torchlint
