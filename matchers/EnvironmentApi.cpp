#include "matchers/EnvironmentApi.h"

#include "clang/AST/Expr.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint::api {
namespace {
std::optional<std::string> stringValue(const Expr *E) {
  const auto *Literal =
      dyn_cast_or_null<StringLiteral>(E ? E->IgnoreParenCasts() : nullptr);
  if (!Literal || Literal->getCharByteWidth() != 1)
    return std::nullopt;
  return Literal->getString().str();
}
} // namespace

internal::BindableMatcher<Stmt> environmentSetting() {
  return callExpr(callee(functionDecl(
      hasAnyName("::setenv", "::putenv", "::_putenv", "::_putenv_s"))));
}

std::optional<EnvironmentSetting> asEnvironmentSetting(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getDeclName().isIdentifier())
    return std::nullopt;
  EnvironmentSetting Setting;
  if (FD->getName() == "putenv" || FD->getName() == "_putenv") {
    std::optional<std::string> Text =
        Call->getNumArgs() == 1 ? stringValue(Call->getArg(0)) : std::nullopt;
    size_t Equals = Text ? Text->find('=') : std::string::npos;
    if (Equals == std::string::npos)
      return std::nullopt;
    Setting.Name = Text->substr(0, Equals);
    Setting.Value = Text->substr(Equals + 1);
    return Setting;
  }
  std::optional<std::string> Name =
      Call->getNumArgs() >= 2 ? stringValue(Call->getArg(0)) : std::nullopt;
  if (!Name)
    return std::nullopt;
  Setting.Name = *Name;
  Setting.Value = stringValue(Call->getArg(1));
  return Setting;
}

} // namespace torchlint::api
