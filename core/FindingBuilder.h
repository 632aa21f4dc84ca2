//===--- FindingBuilder.h - One finding, from clang locations ---*- C++ -*-===//
//
// Rules report through a builder that resolves clang locations to files,
// offsets, lines and columns at once, so that a finding outlives the AST, and
// that keeps the fix-its of a finding all or nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_CORE_FINDINGBUILDER_H
#define TORCHLINT_CORE_FINDINGBUILDER_H

#include "core/Finding.h"
#include "core/RuleInfo.h"
#include "core/UserCode.h"

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

namespace clang {
class ASTContext;
} // namespace clang

namespace torchlint {

/// The file span a finding would report for Range (out of macros, to their
/// expansion); none outside the user's files.
std::optional<Span> resolveSpan(clang::ASTContext &Ctx, const UserCode &Code,
                                clang::SourceRange Range);

/// Receives the findings of one translation unit.
class FindingSink {
public:
  virtual ~FindingSink();
  virtual void consume(Finding F) = 0;
  /// What the user should know about how the unit was analyzed that is not
  /// a finding (an analysis that gave up on a function); the shells show it
  /// as a tool warning.
  virtual void notice(const std::string &Message) {}
};

/// Builds one finding from clang locations and hands it to the sink when it
/// goes out of scope, like clang's DiagnosticBuilder. Locations inside macros
/// are reported at their expansion; fix-its touching a macro are withheld, all
/// of them, since half a fix is worse than none.
class FindingBuilder {
public:
  FindingBuilder(const UserCode &Code, FindingSink &Sink,
                 clang::ASTContext &Ctx, const RuleInfo &Info,
                 clang::SourceRange Range, const llvm::Twine &Message);
  FindingBuilder(FindingBuilder &&Other) noexcept;
  FindingBuilder(const FindingBuilder &) = delete;
  ~FindingBuilder();

  FindingBuilder &level(Level L);
  /// A note at a related place: shown beside the finding.
  FindingBuilder &note(clang::SourceRange Range, const llvm::Twine &Message);
  /// A note at a place of another unit (from a summary).
  FindingBuilder &note(const Span &Where, const llvm::Twine &Message);
  /// A step of the path that leads to the finding (SARIF's code flow), in
  /// the order of the path: where a value comes from, where it ends up.
  FindingBuilder &flowStep(clang::SourceRange Range,
                           const llvm::Twine &Message);
  /// Both at once, with one text: a related place that is also a step of
  /// the path. A step that is no note (the finding's own place) is a
  /// flowStep.
  FindingBuilder &pathNote(clang::SourceRange Range,
                           const llvm::Twine &Message);
  /// What to do about it: a note at the finding's own place, after every
  /// other note, so that the message itself can say what is wrong and what
  /// it costs in one clause.
  FindingBuilder &remedy(const llvm::Twine &Message);
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
  /// No fix-its, whatever is added.
  void withholdFixIts() { FixWithheld = true; }
  /// Not reported after all.
  void discard() { Reported = false; }

private:
  void addFix(clang::CharSourceRange Range, llvm::StringRef Text);

  const UserCode *Code;
  FindingSink *Sink;
  clang::ASTContext *Ctx;
  bool Reported;
  bool FixWithheld = false;
  std::string Remedy;
  Finding F;
};

} // namespace torchlint

#endif // TORCHLINT_CORE_FINDINGBUILDER_H
