//===--- UnitIndex.h - Who calls what in a translation unit -----*- C++ -*-===//
//
// The interprocedural questions of the analyses and rules: the call sites of
// a function, whether its callers are all known (its address never taken),
// the function that creates a lambda, the function a statement is in, and
// the globals some function changes. Built once per unit, on the first
// question, over the user's code only.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_UNITINDEX_H
#define TORCHLINT_ANALYSIS_UNITINDEX_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class Expr;
class FieldDecl;
class FunctionDecl;
class Stmt;
class VarDecl;
} // namespace clang

namespace torchlint {

class UserCode;

class UnitIndex {
public:
  UnitIndex(clang::ASTContext &Ctx, const UserCode &Code)
      : Ctx(Ctx), Code(Code) {}

  clang::ASTContext &astContext() const { return Ctx; }

  struct CallSite {
    const clang::Expr *Call; ///< CallExpr or CXXConstructExpr
    const clang::FunctionDecl *Caller;
  };
  /// The calls of FD (its canonical declaration) from user code. Nullopt when
  /// FD escapes (its address is taken) or is virtual, so its callers are not
  /// all known.
  std::optional<llvm::ArrayRef<CallSite>>
  callSites(const clang::FunctionDecl *FD);

  /// The calls of FD from user code that this unit shows, whether or not
  /// they are all of its callers (a virtual method's, an escaping
  /// function's): where it may be called from.
  llvm::ArrayRef<CallSite> seenCalls(const clang::FunctionDecl *FD);

  /// Every function user code calls (canonical declarations), in no order.
  std::vector<const clang::FunctionDecl *> callees();
  /// The functions with a body in user code, in the order they appear.
  llvm::ArrayRef<const clang::FunctionDecl *> definitions();

  /// For a lambda's call operator: the lambda expression and the function that
  /// creates it.
  std::optional<CallSite> lambdaOrigin(const clang::FunctionDecl *CallOperator);

  /// For a lambda's call operator: the calls of the lambda when it is kept
  /// in a local variable of its own type that is only ever called, so that
  /// it runs where it is called and nowhere else. Nullopt when the closure
  /// goes elsewhere (passed to an algorithm or a thread, stored, copied):
  /// where it runs is not known.
  std::optional<llvm::ArrayRef<CallSite>>
  lambdaCalls(const clang::FunctionDecl *CallOperator);

  /// The user function whose body holds S (a lambda's call operator for a
  /// statement in a lambda), or null.
  const clang::FunctionDecl *enclosingFunction(const clang::Stmt *S) const;

  /// S is in the pattern of a template: its instantiations are analyzed
  /// instead, where types and callers are known.
  bool inTemplatePattern(const clang::Stmt *S) const;

  /// Some user function assigns the global or moves it: its initialiser says
  /// nothing of its value elsewhere.
  bool isChanged(const clang::VarDecl *Global);

  /// A global, or one member of a global object.
  using StoreKey = std::pair<const clang::VarDecl *, const clang::FieldDecl *>;
  /// An assignment `Global = Value` or `Global.Member = Value` in user code.
  struct GlobalStore {
    const clang::Expr *Value;
    const clang::FunctionDecl *In;
  };
  /// The values user code assigns to a global, or to one member of a global
  /// object (Member null for the global itself). Nullopt when it is also
  /// changed otherwise (compound assignment, a member function, a move):
  /// then what it holds is not a choice among those values.
  std::optional<llvm::ArrayRef<GlobalStore>>
  globalStores(const clang::VarDecl *Global,
               const clang::FieldDecl *Member = nullptr);

private:
  void build();

  clang::ASTContext &Ctx;
  const UserCode &Code;
  bool Built = false;
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<CallSite>> Calls;
  llvm::DenseSet<const clang::FunctionDecl *> Escaping;
  llvm::DenseMap<const clang::FunctionDecl *, CallSite> Lambdas;
  llvm::DenseSet<const clang::VarDecl *> ChangedGlobals;
  llvm::DenseMap<StoreKey, std::vector<GlobalStore>> Stores;
  /// Globals and members changed other than by a plain assignment.
  llvm::DenseSet<StoreKey> OpaqueStores;
  std::vector<const clang::FunctionDecl *> Defined;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_UNITINDEX_H
