#include "rules/UnregisteredSubmoduleCheck.h"

#include "analysis/DeviceFlow.h"
#include "analysis/FunctionCfg.h"
#include "analysis/UnitIndex.h"
#include "common/Scenarios.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <string>
#include <vector>

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo UnregisteredSubmoduleCheck::Info = {
    "torch-unregistered-submodule",
    "UnregisteredSubmodule",
    "a module's submodule or tensor member is used but never registered",
    Level::Error,
    /*OffersFixIts=*/true,
    "correctness,gpu,libtorch",
    "high",
};

namespace {

/// What a member of a module holds, as far as registration goes.
enum class MemberKind {
  Module,  ///< a module with parameters or buffers
  Dropout, ///< parameter-free, but its mode matters
  Tensor,
};

bool isDropout(const CXXRecordDecl *Impl) {
  return Impl->getDeclName().isIdentifier() &&
         Impl->getName().contains("Dropout");
}

std::optional<MemberKind> memberKind(const FieldDecl *Member) {
  QualType T = Member->getType();
  if (T->isReferenceType() || T->isPointerType())
    return std::nullopt;
  if (api::isTensor(T))
    return MemberKind::Tensor;
  const CXXRecordDecl *Record = T->getAsCXXRecordDecl();
  // A module held by value cannot be registered (register_module takes a
  // shared pointer); a TorchScript module is registered otherwise.
  if (!Record || api::isModuleClass(Record) || api::isScriptModuleClass(Record))
    return std::nullopt;
  const CXXRecordDecl *Impl = api::moduleClassOf(T);
  if (!Impl || api::isScriptModuleClass(Impl))
    return std::nullopt;
  if (api::isParameterFree(Impl))
    return isDropout(Impl) ? std::optional(MemberKind::Dropout) : std::nullopt;
  return MemberKind::Module;
}

/// The member of `this` that E is, through copies and std::move.
const FieldDecl *memberOfThis(const Expr *E) {
  E = api::ignoreWrappers(E);
  if (const auto *Call = dyn_cast_or_null<CallExpr>(E))
    if (const FunctionDecl *Callee = Call->getDirectCallee())
      if (Callee->isInStdNamespace() && Callee->getDeclName().isIdentifier() &&
          (Callee->getName() == "move" || Callee->getName() == "forward") &&
          Call->getNumArgs() == 1)
        E = api::ignoreWrappers(Call->getArg(0));
  const auto *Member = dyn_cast_or_null<MemberExpr>(E);
  if (!Member || !isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  return dyn_cast<FieldDecl>(Member->getMemberDecl());
}

/// Every member named in S, of any object.
class MemberNames : public RecursiveASTVisitor<MemberNames> {
public:
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *Field = dyn_cast<FieldDecl>(E->getMemberDecl()))
      Fields.push_back(Field);
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (!api::registrationName(Call).empty())
      Registers = true;
    if (const auto *Method =
            dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee()))
      if (Method->getDeclName().isIdentifier() &&
          (Method->getName() == "requires_grad_" ||
           Method->getName() == "set_requires_grad" ||
           Method->getName() == "requires_grad"))
        RequiresGrad = true;
    return true;
  }
  std::vector<const FieldDecl *> Fields;
  bool Registers = false;
  bool RequiresGrad = false;
};

MemberNames namesIn(const Stmt *S) {
  MemberNames Names;
  Names.TraverseStmt(const_cast<Stmt *>(S));
  return Names;
}

/// The expression the source writes for a value: without the implicit
/// nodes and copies around it, but with the casts it spells.
const Expr *writtenValue(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    const auto *Copy = dyn_cast<CXXConstructExpr>(E);
    if (!Copy || isa<CXXTemporaryObjectExpr>(Copy) || Copy->getNumArgs() != 1 ||
        !Copy->getConstructor()->isCopyOrMoveConstructor())
      return E;
    E = Copy->getArg(0);
  }
  return E;
}

bool isInitialization(const FunctionDecl *In) {
  // Cloneable modules register in reset(), which their constructor calls.
  if (isa_and_nonnull<CXXConstructorDecl>(In))
    return true;
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(In);
  return Method && Method->getDeclName().isIdentifier() &&
         Method->getName() == "reset";
}

} // namespace

/// What the unit's code does with the members of modules.
struct ModuleMembers {
  struct Registration {
    const CallExpr *Call;
    const FunctionDecl *In;
    std::optional<std::string> Name;
    /// The member of `this` it registers, when it is one.
    const FieldDecl *Member;
  };
  std::vector<Registration> Registrations;
  /// Registrations whose result a member is assigned (`fc = register_...`).
  llvm::DenseMap<const Expr *, const FieldDecl *> AssignedFrom;
  /// Members named inside a registration (also inside a Sequential or a
  /// ModuleList that is registered), or assigned what a registration gives.
  llvm::DenseSet<const FieldDecl *> Registered;
  /// Module members handed to a function: it may register them.
  llvm::DenseSet<const FieldDecl *> Handed;
  struct Assignment {
    const FunctionDecl *In; ///< null for an in-class initializer
    const Expr *Value;
  };
  llvm::DenseMap<const FieldDecl *, std::vector<Assignment>> Assignments;
  llvm::DenseSet<const FieldDecl *> RequiresGrad;
  struct Use {
    const MemberExpr *Where;
    const FunctionDecl *In;
  };
  /// Reads of members of `this`, in the order of the unit.
  llvm::DenseMap<const FieldDecl *, std::vector<Use>> Uses;
  llvm::DenseSet<const MemberExpr *> AssignedAt;
  /// Classes whose in-class initializers were scanned.
  llvm::DenseSet<const CXXRecordDecl *> ScannedClasses;

  /// The member R registers: its argument, or the member that keeps what
  /// it returns.
  const FieldDecl *memberOf(const Registration &R) const {
    return R.Member ? R.Member : AssignedFrom.lookup(R.Call);
  }
  /// R runs in a method of Class.
  static bool madeBy(const Registration &R, const CXXRecordDecl *Class) {
    const auto *Method = dyn_cast_or_null<CXXMethodDecl>(R.In);
    return Method && Method->getParent() == Class;
  }

  void assign(const FieldDecl *Member, const Expr *Value,
              const FunctionDecl *In) {
    if (!Member || !Value)
      return;
    Assignments[Member].push_back({In, Value});
    // The holder a member is assigned is made from the pointer returned.
    const Expr *Given = api::ignoreWrappers(Value);
    while (const auto *Convert = dyn_cast_or_null<CXXConstructExpr>(Given)) {
      if (Convert->getNumArgs() != 1 || isa<CXXTemporaryObjectExpr>(Convert))
        break;
      Given = api::ignoreWrappers(Convert->getArg(0));
    }
    AssignedFrom[Given] = Member;
    MemberNames Names = namesIn(Value);
    if (Names.Registers)
      Registered.insert(Member);
    if (Names.RequiresGrad)
      RequiresGrad.insert(Member);
  }
};

namespace {

class MemberScanner : public RecursiveASTVisitor<MemberScanner> {
public:
  MemberScanner(ModuleMembers &Out, const FunctionDecl *In)
      : Out(Out), In(In) {}

  bool VisitCallExpr(CallExpr *Call) {
    if (!api::registrationName(Call).empty()) {
      Out.Registrations.push_back(
          {Call, In,
           Call->getNumArgs() ? api::literalText(Call->getArg(0)) : std::nullopt,
           Call->getNumArgs() > 1 ? memberOfThis(Call->getArg(1)) : nullptr});
      for (const Expr *Arg : Call->arguments())
        for (const FieldDecl *Field : namesIn(Arg).Fields)
          Out.Registered.insert(Field);
      return true;
    }
    unsigned First = 0;
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Operator->isAssignmentOp() && Operator->getNumArgs() == 2) {
        const FieldDecl *Member = memberOfThis(Operator->getArg(0));
        Out.assign(Member, Operator->getArg(1), In);
        if (Member)
          markAssigned(Operator->getArg(0));
      }
      // A member operator's first argument is its object, not an input.
      if (isa_and_nonnull<CXXMethodDecl>(Operator->getDirectCallee()))
        First = 1;
    }
    for (unsigned I = First; I < Call->getNumArgs(); ++I)
      hand(Call->getArg(I));
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    for (const Expr *Arg : Construct->arguments())
      hand(Arg);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *Assign) {
    if (Assign->isAssignmentOp())
      if (const FieldDecl *Member = memberOfThis(Assign->getLHS())) {
        Out.assign(Member, Assign->getRHS(), In);
        markAssigned(Assign->getLHS());
      }
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *Field = dyn_cast<FieldDecl>(E->getMemberDecl()))
      if (isa<CXXThisExpr>(E->getBase()->IgnoreParenImpCasts()))
        Out.Uses[Field].push_back({E, In});
    return true;
  }
  bool TraverseConstructorInitializer(CXXCtorInitializer *Init) {
    if (Init->isMemberInitializer() && Init->isWritten())
      Out.assign(Init->getMember(), Init->getInit(), In);
    return RecursiveASTVisitor::TraverseConstructorInitializer(Init);
  }

private:
  void hand(const Expr *Arg) {
    const FieldDecl *Member = memberOfThis(Arg);
    std::optional<MemberKind> Kind = Member ? memberKind(Member) : std::nullopt;
    if (Kind && *Kind != MemberKind::Tensor)
      Out.Handed.insert(Member);
  }
  void markAssigned(const Expr *Target) {
    if (const auto *Member =
            dyn_cast<MemberExpr>(Target->IgnoreParenImpCasts()))
      Out.AssignedAt.insert(Member);
  }

  ModuleMembers &Out;
  const FunctionDecl *In;
};

/// Every method the class declares has its body in this unit: nothing can
/// register a member where the unit cannot see.
bool wholeClassVisible(const CXXRecordDecl *Class) {
  for (const CXXMethodDecl *Method : Class->methods()) {
    if (Method->isImplicit() || Method->isDefaulted() || Method->isDeleted() ||
        Method->isPureVirtual())
      continue;
    if (!Method->hasBody())
      return false;
  }
  for (const Decl *D : Class->decls())
    if (const auto *Template = dyn_cast<FunctionTemplateDecl>(D))
      if (!Template->getTemplatedDecl()->hasBody())
        return false;
  return true;
}

std::string registeredName(const FieldDecl *Member) {
  llvm::StringRef Name = Member->getName();
  if (Name.size() > 1)
    Name.consume_back("_");
  return Name.str();
}

/// Reachable from First's place, on some path, in their function.
bool runsAfter(const CallExpr *First, const CallExpr *Second,
               const FunctionCfg &Cfg, ASTContext &Ctx) {
  std::optional<FunctionCfg::Place> From = Cfg.placeOf(First, Ctx);
  std::optional<FunctionCfg::Place> To = Cfg.placeOf(Second, Ctx);
  if (!From || !To)
    return false;
  return Cfg.search(*From, [&](const CFGElement &Element) {
    std::optional<CFGStmt> S = Element.getAs<CFGStmt>();
    return S && S->getStmt() == Second ? FunctionCfg::Step::Found
                                       : FunctionCfg::Step::Continue;
  }) != nullptr;
}

} // namespace

UnregisteredSubmoduleCheck::UnregisteredSubmoduleCheck(AnalysisContext &Context)
    : Rule(Info, Context) {}
UnregisteredSubmoduleCheck::~UnregisteredSubmoduleCheck() = default;

void UnregisteredSubmoduleCheck::registerMatchers(MatchFinder *Finder) {
  // A class template's members are checked where the unit instantiates it
  // whole, which it rarely does: templates are left out.
  Finder->addMatcher(cxxRecordDecl(isDefinition(), unless(isImplicit()),
                                   unless(classTemplateSpecializationDecl()),
                                   unless(hasAncestor(classTemplateDecl())),
                                   isDerivedFrom(cxxRecordDecl(
                                       hasName("::torch::nn::Module"))))
                         .bind("module"),
                     this);
}

const ModuleMembers &UnregisteredSubmoduleCheck::members(ASTContext &Ctx) {
  if (Facts && FactsOf == &Ctx)
    return *Facts;
  Facts = std::make_unique<ModuleMembers>();
  FactsOf = &Ctx;
  for (const FunctionDecl *Function : context().unitIndex(Ctx).definitions())
    MemberScanner(*Facts, Function)
        .TraverseDecl(const_cast<FunctionDecl *>(Function));
  return *Facts;
}

void UnregisteredSubmoduleCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Class = Result.Nodes.getNodeAs<CXXRecordDecl>("module");
  if (!wholeClassVisible(Class))
    return;
  members(Ctx);
  if (Facts->ScannedClasses.insert(Class).second)
    for (const FieldDecl *Member : Class->fields())
      if (const Expr *Init = Member->getInClassInitializer()) {
        Facts->assign(Member, Init, nullptr);
        MemberScanner(*Facts, nullptr).TraverseStmt(const_cast<Expr *>(Init));
      }
  for (const FieldDecl *Member : Class->fields())
    reportUnregistered(Class, Member, *Facts, Ctx);
  reportRegisteredTwice(Class, *Facts, Ctx);
}

void UnregisteredSubmoduleCheck::reportUnregistered(const CXXRecordDecl *Class,
                                                    const FieldDecl *Member,
                                                    const ModuleMembers &Facts,
                                                    ASTContext &Ctx) {
  std::optional<MemberKind> Kind = memberKind(Member);
  if (!Kind || Facts.Registered.count(Member) || Facts.Handed.count(Member))
    return;

  // Where the member gets its value: at initialization, never afterwards
  // for a tensor (one assigned in forward() is state, not a weight).
  bool Initialized = false;
  auto Assigned = Facts.Assignments.find(Member);
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  if (Assigned != Facts.Assignments.end())
    for (const ModuleMembers::Assignment &A : Assigned->second) {
      if (!A.In || isInitialization(A.In)) {
        // A tensor made on a device (`anchors.to(device)`) or handed in by
        // the constructor's caller is where it was put, whatever to() does
        // later: only one made on the host is left there.
        if (*Kind == MemberKind::Tensor &&
            llvm::any_of(Flow.devicesOf(A.Value), [](const DeviceFact &F) {
              return !F.isKnown() || F.Kind != api::DeviceKind::CPU;
            }))
          return;
        // A holder made empty (`{nullptr}`) is not yet a module.
        const auto *Construct =
            dyn_cast<CXXConstructExpr>(api::ignoreWrappers(A.Value));
        bool Empty = Construct && Construct->getNumArgs() == 1 &&
                     Construct->getArg(0)->getType()->isNullPtrType();
        Initialized |= !Empty;
      } else if (*Kind == MemberKind::Tensor) {
        return;
      }
    }
  // A module member nothing sets is made by its default constructor (a
  // holder of a default-constructible module); one set only to `nullptr`
  // holds no module, and a tensor nothing sets holds no tensor.
  if (!Initialized) {
    if (*Kind == MemberKind::Tensor || Assigned != Facts.Assignments.end())
      return;
    Initialized = true;
  }

  const MemberExpr *Use = nullptr;
  auto Uses = Facts.Uses.find(Member);
  if (Uses == Facts.Uses.end())
    return;
  for (bool InForward : {true, false}) {
    for (const ModuleMembers::Use &U : Uses->second) {
      const auto *Method = dyn_cast_or_null<CXXMethodDecl>(U.In);
      if (!Method || Method->getParent() != Class || isInitialization(Method) ||
          Facts.AssignedAt.count(U.Where))
        continue;
      bool IsForward = Method->getDeclName().isIdentifier() &&
                       Method->getName() == "forward";
      if (IsForward == InForward) {
        Use = U.Where;
        break;
      }
    }
    if (Use)
      break;
  }
  if (!Use)
    return;

  bool Trained =
      *Kind == MemberKind::Module ||
      (*Kind == MemberKind::Tensor && Facts.RequiresGrad.count(Member));
  llvm::StringRef Register = *Kind != MemberKind::Tensor ? "register_module"
                             : Trained                   ? "register_parameter"
                                                         : "register_buffer";
  std::string Name = Member->getName().str();
  std::string Literal = registeredName(Member);
  std::string Statement =
      Name + " = " + Register.str() + "(\"" + Literal + "\", " + Name + ");";
  std::string Message;
  if (*Kind == MemberKind::Dropout)
    Message = "submodule '" + Name +
              "' is never registered, so eval() does not reach it and it goes "
              "on dropping activations at inference";
  else if (*Kind == MemberKind::Module)
    Message = "submodule '" + Name +
              "' is never registered, so to() leaves it on the CPU and "
              "parameters() gives the optimizer none of its weights";
  else if (Trained)
    Message = "tensor member '" + Name +
              "' is never registered, so to() leaves it on the CPU and "
              "parameters() gives the optimizer nothing to train";
  else
    Message = "tensor member '" + Name +
              "' is never registered, so to() leaves it on the CPU";

  // Where the module is set up: reset() of a Cloneable module, else its
  // first constructor written with a body.
  const FunctionDecl *SetUp = nullptr;
  for (const CXXMethodDecl *Method : Class->methods())
    if (const FunctionDecl *Definition = Method->getDefinition())
      if (!Method->isImplicit() && isInitialization(Method) &&
          (!SetUp || !isa<CXXConstructorDecl>(Method)))
        SetUp = Definition;

  FindingBuilder Finding = report(Ctx, Use->getSourceRange(), Message);
  Finding.note(Member->getSourceRange(), "'" + Name + "' is declared here");
  if (SetUp)
    Finding.note(SourceRange(SetUp->getLocation()),
                 llvm::Twine("'") + Class->getName() +
                     "' is set up here without registering '" + Name + "'");
  // The name the member would be registered under may hold another member
  // already (the copy-paste `register_module("bn2", bn1)`).
  const FieldDecl *NameHolder = nullptr;
  bool NameTaken = false;
  for (const ModuleMembers::Registration &R : Facts.Registrations)
    if (R.Name == Literal && ModuleMembers::madeBy(R, Class)) {
      NameTaken = true;
      NameHolder = Facts.memberOf(R);
    }
  if (NameTaken && NameHolder && NameHolder != Member)
    Finding.remedy("register it where the module is set up, once \"" + Literal +
                   "\" no longer holds '" + NameHolder->getName() +
                   "': " + Statement);
  else
    Finding.remedy("register it where the module is set up: " + Statement);
  Finding.recipe({{"scenario", scenario::UnregisteredSubmodule},
                  {"member", Name},
                  {"kind", *Kind == MemberKind::Dropout  ? "dropout"
                           : *Kind == MemberKind::Module ? "module"
                           : Trained                     ? "parameter"
                                                         : "buffer"}});

  // The fix-it registers the value where the module is set up, in place:
  // `fc = register_module("fc", torch::nn::Linear(...))`. Only where that is
  // the member's one value, written as an expression of its own type, and
  // the name is free in the class.
  const ModuleMembers::Assignment *Only = nullptr;
  if (Assigned != Facts.Assignments.end())
    for (const ModuleMembers::Assignment &A : Assigned->second) {
      if (!A.In)
        continue;
      if (Only)
        return;
      Only = &A;
    }
  if (!Only || !isInitialization(Only->In) || NameTaken)
    return;
  const Expr *Value = writtenValue(Only->Value);
  // A member initializer's own construction (`drop(options)`) has no text
  // of its own to wrap.
  if (!Value ||
      (isa<CXXConstructExpr>(Value) && !isa<CXXTemporaryObjectExpr>(Value)))
    return;
  if (api::bareType(Value->getType()).getCanonicalType() !=
      api::bareType(Member->getType()).getCanonicalType())
    return;
  Finding.insertBefore(Value->getBeginLoc(),
                       (Register + "(\"" + Literal + "\", ").str());
  Finding.insertAfter(Value->getEndLoc(), ")");
}

void UnregisteredSubmoduleCheck::reportRegisteredTwice(
    const CXXRecordDecl *Class, const ModuleMembers &Facts, ASTContext &Ctx) {
  std::vector<const ModuleMembers::Registration *> Mine;
  for (const ModuleMembers::Registration &R : Facts.Registrations)
    if (ModuleMembers::madeBy(R, Class) && isInitialization(R.In))
      Mine.push_back(&R);
  for (size_t J = 0; J < Mine.size(); ++J)
    for (size_t I = 0; I < J; ++I) {
      const ModuleMembers::Registration &First = *Mine[I], &Second = *Mine[J];
      if (First.In != Second.In)
        continue;
      const FieldDecl *Member = Facts.memberOf(Second);
      bool SameName = First.Name && First.Name == Second.Name;
      bool SameMember = Member && Facts.memberOf(First) == Member &&
                        First.Name && Second.Name && !SameName;
      if (!SameName && !SameMember)
        continue;
      const FunctionCfg *Cfg = context().cfgs(Ctx).get(First.In);
      if (!Cfg || !runsAfter(First.Call, Second.Call, *Cfg, Ctx))
        continue;
      llvm::StringRef Register = api::registrationName(Second.Call);
      llvm::StringRef What = Register == "register_module"      ? "Submodule"
                             : Register == "register_parameter" ? "Parameter"
                                                                : "Buffer";
      if (SameName) {
        report(Ctx, Second.Call->getSourceRange(),
               "the name \"" + *Second.Name +
                   "\" is registered a second time, so construction throws "
                   "\"" +
                   What + " '" + *Second.Name + "' already defined\"")
            .note(First.Call->getSourceRange(), "first registered here")
            .remedy("give each member a name of its own");
      } else {
        report(Ctx, Second.Call->getSourceRange(),
               "'" + Member->getName() +
                   "' is registered a second time, as \"" + *Second.Name +
                   "\", so parameters() lists its weights twice and each "
                   "optimizer step updates them twice")
            .note(First.Call->getSourceRange(),
                  "first registered here, as \"" + *First.Name + "\"")
            .remedy("register each member once; if another member was "
                    "meant, register that one");
      }
      break;
    }
}

} // namespace torchlint
