//===--- Rule.h - Base class of every torchlint rule ------------*- C++ -*-===//
//
// A rule is a small class in the style of a clang-tidy check: it registers AST
// matchers and turns each match into findings. It never knows which shell (the
// torchlint CLI or the clang-tidy plugin) runs it: it reports through the
// AnalysisContext, which owns the shared analyses of the translation unit and
// hands findings to whatever sink the shell installed.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_MATCHERS_RULE_H
#define TORCHLINT_MATCHERS_RULE_H

#include "Finding.h"
#include "UserCode.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
} // namespace clang

namespace torchlint {

class DeviceFlow;

/// Static description of a rule; also the source of --list-checks and of the
/// SARIF rule metadata.
struct RuleInfo {
  /// Stable identifier: "torch-device-mismatch".
  const char *Id;
  /// Readable identifier for reports: "DeviceMismatch".
  const char *Name;
  /// One line, lower-case, no final period.
  const char *Summary;
  const char *Description;
  Level DefaultLevel;
  bool OffersFixIts;
  /// Comma-separated: "correctness,gpu".
  const char *Tags;
  /// How often a finding is right, in SARIF's words: "very-high", "high",
  /// "medium" or "low".
  const char *Precision;
};

/// Where rule options come from: the CLI's configuration or .clang-tidy
/// CheckOptions in the plugin. Keys are "<rule-id>.<Option>".
class RuleOptions {
public:
  virtual ~RuleOptions() = default;
  virtual std::optional<std::string> get(llvm::StringRef Key) const = 0;
};

/// Receives the findings of one translation unit.
class FindingSink {
public:
  virtual ~FindingSink();
  virtual void consume(Finding F) = 0;
};

/// Per translation unit: the shared analyses, the user-code filter and the
/// sink. Analyses are built lazily, on the first rule that asks.
class AnalysisContext {
public:
  AnalysisContext(const UserCode &Code, FindingSink &Sink,
                  const RuleOptions *Options = nullptr);
  ~AnalysisContext();

  const UserCode &userCode() const { return Code; }
  FindingSink &sink() { return Sink; }
  std::optional<std::string> option(llvm::StringRef Key) const;

  /// The device flow of a run on a machine with a GPU.
  DeviceFlow &deviceFlow(clang::ASTContext &Ctx);
  /// The device flow of a run on a machine without one.
  DeviceFlow &deviceFlowWithoutGpu(clang::ASTContext &Ctx);

private:
  const UserCode &Code;
  FindingSink &Sink;
  const RuleOptions *Options;
  std::unique_ptr<DeviceFlow> WithGpu;
  std::unique_ptr<DeviceFlow> WithoutGpu;
};

/// Builds one finding from clang locations and hands it to the sink when it
/// goes out of scope, like clang's DiagnosticBuilder. Locations inside macros
/// are reported at their expansion; fix-its touching a macro are withheld, all
/// of them, since half a fix is worse than none.
class FindingBuilder {
public:
  FindingBuilder(AnalysisContext &Context, clang::ASTContext &Ctx,
                 const RuleInfo &Info, clang::SourceRange Range,
                 const llvm::Twine &Message);
  FindingBuilder(FindingBuilder &&Other) noexcept;
  FindingBuilder(const FindingBuilder &) = delete;
  ~FindingBuilder();

  FindingBuilder &level(Level L);
  FindingBuilder &note(clang::SourceRange Range, const llvm::Twine &Message);
  FindingBuilder &flowStep(clang::SourceRange Range,
                           const llvm::Twine &Message);
  FindingBuilder &insertAfter(clang::SourceLocation TokenLoc,
                              llvm::StringRef Text);
  FindingBuilder &insertBefore(clang::SourceLocation Loc, llvm::StringRef Text);
  /// Adds Line (with its indentation) as a line of its own after the token
  /// at TokenLoc: after the comment that ends the token's line, if any, so
  /// that the comment stays where it was; right after the token when code
  /// follows it on its line.
  FindingBuilder &insertLineAfter(clang::SourceLocation TokenLoc,
                                  llvm::StringRef Line);
  FindingBuilder &replace(clang::SourceRange TokenRange, llvm::StringRef Text);
  FindingBuilder &remove(clang::CharSourceRange Range);
  FindingBuilder &recipe(nlohmann::json Recipe);

private:
  void addFix(clang::CharSourceRange Range, llvm::StringRef Text);

  AnalysisContext *Context;
  clang::ASTContext *Ctx;
  bool Reported;
  bool FixWithheld = false;
  Finding F;
};

/// The text of Loc's line before Loc, for the indentation of a line that a
/// fix-it inserts; empty when the buffer cannot be read.
llvm::StringRef textBeforeOnLine(clang::SourceLocation Loc,
                                 const clang::SourceManager &SM);

/// The last token of a statement of a block: its semicolon, also that of the
/// body of an if or a loop without braces.
clang::SourceLocation lastTokenOf(const clang::Stmt *S, clang::ASTContext &Ctx);

/// The indentation of Loc's line, for a line that a fix-it adds beside it.
std::string indentationOf(clang::SourceLocation Loc,
                          const clang::SourceManager &SM);

class Rule : public clang::ast_matchers::MatchFinder::MatchCallback {
public:
  Rule(const RuleInfo &Info, AnalysisContext &Context)
      : Info(Info), Context(Context) {}

  virtual void registerMatchers(clang::ast_matchers::MatchFinder *Finder) = 0;
  virtual void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) = 0;

  const RuleInfo &info() const { return Info; }

  /// Runs check() on matches in the user's code only. The CLI never
  /// traverses anything else; clang-tidy traverses the whole unit.
  void run(const clang::ast_matchers::MatchFinder::MatchResult &Result) final;
  llvm::StringRef getID() const final { return Info.Id; }

protected:
  FindingBuilder report(clang::ASTContext &Ctx, clang::SourceRange Range,
                        const llvm::Twine &Message) {
    return FindingBuilder(Context, Ctx, Info, Range, Message);
  }
  AnalysisContext &context() { return Context; }

private:
  const RuleInfo &Info;
  AnalysisContext &Context;
};

} // namespace torchlint

#endif // TORCHLINT_MATCHERS_RULE_H
