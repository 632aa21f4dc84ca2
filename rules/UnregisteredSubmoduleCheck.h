//===--- UnregisteredSubmoduleCheck.h - torch-unregistered-submodule -*- C++
//-*-===//
//
// A module's member that forward() uses but that was never registered:
// Module::to() moves, parameters() returns and eval() reaches only what
// register_module, register_parameter and register_buffer were given, so the
// member stays on the CPU when the model moves and is never trained. Also a
// member registered under two names (its parameters counted twice) and a
// name registered twice (a throw at construction).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_UNREGISTEREDSUBMODULECHECK_H
#define TORCHLINT_RULES_UNREGISTEREDSUBMODULECHECK_H

#include "rules/Rule.h"

#include <memory>

namespace clang {
class CXXRecordDecl;
class FieldDecl;
} // namespace clang

namespace torchlint {

struct ModuleMembers;

class UnregisteredSubmoduleCheck : public Rule {
public:
  static const RuleInfo Info;
  explicit UnregisteredSubmoduleCheck(AnalysisContext &Context);
  ~UnregisteredSubmoduleCheck() override;

  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// What the unit's code does with module members, gathered once.
  const ModuleMembers &members(clang::ASTContext &Ctx);
  void reportUnregistered(const clang::CXXRecordDecl *Class,
                          const clang::FieldDecl *Member,
                          const ModuleMembers &Facts, clang::ASTContext &Ctx);
  void reportRegisteredTwice(const clang::CXXRecordDecl *Class,
                             const ModuleMembers &Facts,
                             clang::ASTContext &Ctx);

  std::unique_ptr<ModuleMembers> Facts;
  const clang::ASTContext *FactsOf = nullptr;
};

} // namespace torchlint

#endif // TORCHLINT_RULES_UNREGISTEREDSUBMODULECHECK_H
