#include "analysis/DebugRegions.h"

#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Token.h"

#include <optional>

using namespace clang;

namespace torchlint {

namespace {
/// A macro whose name says it is set for debug builds: DEBUG, _DEBUG,
/// MY_DEBUG, DEBUG_MODE. NDEBUG says the opposite.
bool isDebugMacro(llvm::StringRef Name) {
  return Name != "NDEBUG" && Name.contains("DEBUG");
}

/// Whether a condition holds in debug builds only (true), in release builds
/// only (false), or says nothing of the build (nullopt): the first macro it
/// names that is NDEBUG or a debug macro decides, negated by a `!` right
/// before it or before its `defined`.
std::optional<bool> debugWhenTrue(llvm::StringRef Condition) {
  size_t At = 0;
  while (At < Condition.size()) {
    if (!isAsciiIdentifierStart(Condition[At])) {
      ++At;
      continue;
    }
    size_t End = At;
    while (End < Condition.size() && isAsciiIdentifierContinue(Condition[End]))
      ++End;
    llvm::StringRef Name = Condition.slice(At, End);
    if (Name == "NDEBUG" || isDebugMacro(Name)) {
      llvm::StringRef Before = Condition.take_front(At).rtrim(" \t(");
      Before.consume_back("defined");
      bool Negated = Before.rtrim(" \t(").ends_with("!");
      return (Name == "NDEBUG") == Negated;
    }
    At = End;
  }
  return std::nullopt;
}
} // namespace

class DebugBranchRecorder : public PPCallbacks {
public:
  DebugBranchRecorder(DebugRegions &Regions, const SourceManager &SM,
                      const LangOptions &Lang)
      : Regions(Regions), SM(SM), Lang(Lang) {}

  void If(SourceLocation Loc, SourceRange Condition,
          ConditionValueKind) override {
    open(Loc, debugWhenTrue(textOf(Condition)));
  }
  void Ifdef(SourceLocation Loc, const Token &Name,
             const MacroDefinition &) override {
    llvm::StringRef Macro = nameOf(Name);
    open(Loc, Macro == "NDEBUG"     ? std::optional(false)
              : isDebugMacro(Macro) ? std::optional(true)
                                    : std::nullopt);
  }
  void Ifndef(SourceLocation Loc, const Token &Name,
              const MacroDefinition &) override {
    llvm::StringRef Macro = nameOf(Name);
    open(Loc, Macro == "NDEBUG"     ? std::optional(true)
              : isDebugMacro(Macro) ? std::optional(false)
                                    : std::nullopt);
  }
  void Elif(SourceLocation Loc, SourceRange Condition, ConditionValueKind,
            SourceLocation) override {
    if (Open.empty())
      return;
    close(Loc);
    Open.back() = {Loc, debugWhenTrue(textOf(Condition)), false};
  }
  void Else(SourceLocation Loc, SourceLocation) override {
    if (Open.empty())
      return;
    close(Loc);
    Branch &B = Open.back();
    B = {Loc, B.DebugWhenTrue, true};
  }
  void Endif(SourceLocation Loc, SourceLocation) override {
    if (Open.empty())
      return;
    close(Loc);
    Open.pop_back();
  }

private:
  struct Branch {
    SourceLocation Start;
    std::optional<bool> DebugWhenTrue;
    bool IsElse;
    bool debugOnly() const { return DebugWhenTrue && *DebugWhenTrue != IsElse; }
  };

  void open(SourceLocation Loc, std::optional<bool> DebugWhenTrue) {
    Open.push_back({Loc, DebugWhenTrue, false});
  }
  void close(SourceLocation End) {
    const Branch &B = Open.back();
    if (B.debugOnly() && !SM.isInSystemHeader(B.Start))
      Regions.Ranges.push_back({B.Start, End});
  }
  llvm::StringRef textOf(SourceRange Range) const {
    return Lexer::getSourceText(CharSourceRange::getTokenRange(Range), SM,
                                Lang);
  }
  static llvm::StringRef nameOf(const Token &Name) {
    const IdentifierInfo *Info = Name.getIdentifierInfo();
    return Info ? Info->getName() : "";
  }

  DebugRegions &Regions;
  const SourceManager &SM;
  const LangOptions &Lang;
  std::vector<Branch> Open;
};

std::unique_ptr<PPCallbacks> DebugRegions::recorder(const SourceManager &SM,
                                                    const LangOptions &Lang) {
  Ranges.clear();
  return std::make_unique<DebugBranchRecorder>(*this, SM, Lang);
}

bool DebugRegions::contains(SourceLocation Loc, const SourceManager &SM) const {
  Loc = SM.getExpansionLoc(Loc);
  for (const SourceRange &Range : Ranges)
    if (SM.isBeforeInTranslationUnit(Range.getBegin(), Loc) &&
        SM.isBeforeInTranslationUnit(Loc, Range.getEnd()))
      return true;
  return false;
}

} // namespace torchlint
