#include "core/FindingBuilder.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace torchlint {

FindingSink::~FindingSink() = default;

namespace {

Position position(const SourceManager &SM, SourceLocation Loc) {
  std::pair<FileID, unsigned> Decomposed = SM.getDecomposedLoc(Loc);
  Position P;
  P.Offset = Decomposed.second;
  P.Line = SM.getLineNumber(Decomposed.first, Decomposed.second);
  P.Column = SM.getColumnNumber(Decomposed.first, Decomposed.second);
  return P;
}

/// Resolves a token range to a character span in a file, moving out of macros
/// to their expansion.
std::optional<Span> resolve(ASTContext &Ctx, const UserCode &Code,
                            SourceRange Range) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (Range.isInvalid())
    return std::nullopt;
  CharSourceRange Chars = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Range), SM, Ctx.getLangOpts());
  if (Chars.isInvalid()) {
    // A range that starts and ends in different macro expansions: take the
    // expansion of its beginning.
    SourceLocation Begin = SM.getExpansionLoc(Range.getBegin());
    Chars = CharSourceRange::getCharRange(
        Begin, Lexer::getLocForEndOfToken(Begin, 0, SM, Ctx.getLangOpts()));
  }
  SourceLocation Begin = Chars.getBegin();
  SourceLocation End = Chars.getEnd();
  if (SM.getFileID(Begin) != SM.getFileID(End) || End < Begin)
    End = Begin;
  Span S;
  S.File = Code.filePath(Begin, SM);
  if (S.File.empty())
    return std::nullopt;
  S.Begin = position(SM, Begin);
  S.End = position(SM, End);
  return S;
}

} // namespace

std::optional<Span> resolveSpan(ASTContext &Ctx, const UserCode &Code,
                                SourceRange Range) {
  return resolve(Ctx, Code, Range);
}

FindingBuilder::FindingBuilder(const UserCode &Code, FindingSink &Sink,
                               ASTContext &Ctx, const RuleInfo &Info,
                               SourceRange Range, const llvm::Twine &Message)
    : Code(&Code), Sink(&Sink), Ctx(&Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  Reported = Code.isReported(Range.getBegin(), SM);
  std::optional<Span> Where =
      Reported ? resolve(Ctx, Code, Range) : std::nullopt;
  Reported = Where.has_value();
  if (!Reported)
    return;
  F.RuleId = Info.Id;
  F.Severity = Info.DefaultLevel;
  F.Where = std::move(*Where);
  F.Message = Message.str();
}

FindingBuilder::FindingBuilder(FindingBuilder &&Other) noexcept
    : Code(Other.Code), Sink(Other.Sink), Ctx(Other.Ctx),
      Reported(Other.Reported), FixWithheld(Other.FixWithheld),
      Remedy(std::move(Other.Remedy)), F(std::move(Other.F)) {
  Other.Sink = nullptr;
}

FindingBuilder::~FindingBuilder() {
  if (!Sink || !Reported)
    return;
  if (FixWithheld)
    F.FixIts.clear();
  if (!Remedy.empty())
    F.Notes.push_back({F.Where, std::move(Remedy)});
  Sink->consume(std::move(F));
  Sink = nullptr;
}

FindingBuilder &FindingBuilder::level(Level L) {
  F.Severity = L;
  return *this;
}

FindingBuilder &FindingBuilder::note(SourceRange Range,
                                     const llvm::Twine &Message) {
  if (!Reported)
    return *this;
  if (std::optional<Span> Where = resolve(*Ctx, *Code, Range))
    F.Notes.push_back({std::move(*Where), Message.str()});
  return *this;
}

FindingBuilder &FindingBuilder::note(const Span &Where,
                                     const llvm::Twine &Message) {
  if (Reported)
    F.Notes.push_back({Where, Message.str()});
  return *this;
}

FindingBuilder &FindingBuilder::remedy(const llvm::Twine &Message) {
  if (Reported)
    Remedy = Message.str();
  return *this;
}

FindingBuilder &FindingBuilder::flowStep(SourceRange Range,
                                         const llvm::Twine &Message) {
  if (!Reported)
    return *this;
  if (std::optional<Span> Where = resolve(*Ctx, *Code, Range))
    F.Flow.push_back({std::move(*Where), Message.str()});
  return *this;
}

FindingBuilder &FindingBuilder::pathNote(SourceRange Range,
                                         const llvm::Twine &Message) {
  std::string Text = Message.str();
  return note(Range, Text).flowStep(Range, Text);
}

void FindingBuilder::addFix(CharSourceRange Range, llvm::StringRef Text) {
  if (!Reported || FixWithheld)
    return;
  const SourceManager &SM = Ctx->getSourceManager();
  if (Range.isInvalid() || Range.getBegin().isMacroID() ||
      Range.getEnd().isMacroID() || !Code->isReported(Range.getBegin(), SM)) {
    FixWithheld = true;
    return;
  }
  CharSourceRange Chars =
      Lexer::makeFileCharRange(Range, SM, Ctx->getLangOpts());
  if (Chars.isInvalid()) {
    FixWithheld = true;
    return;
  }
  std::pair<FileID, unsigned> Begin = SM.getDecomposedLoc(Chars.getBegin());
  std::pair<FileID, unsigned> End = SM.getDecomposedLoc(Chars.getEnd());
  if (Begin.first != End.first || End.second < Begin.second) {
    FixWithheld = true;
    return;
  }
  FixIt X;
  X.File = Code->filePath(Chars.getBegin(), SM);
  X.Offset = Begin.second;
  X.Length = End.second - Begin.second;
  X.Replacement = Text.str();
  F.FixIts.push_back(std::move(X));
}

FindingBuilder &FindingBuilder::insertAfter(SourceLocation TokenLoc,
                                            llvm::StringRef Text) {
  if (!Reported)
    return *this;
  if (TokenLoc.isMacroID()) {
    FixWithheld = true;
    return *this;
  }
  SourceLocation After = Lexer::getLocForEndOfToken(
      TokenLoc, 0, Ctx->getSourceManager(), Ctx->getLangOpts());
  addFix(CharSourceRange::getCharRange(After, After), Text);
  return *this;
}

FindingBuilder &FindingBuilder::insertLineAfter(SourceLocation TokenLoc,
                                                llvm::StringRef Line) {
  if (!Reported)
    return *this;
  if (TokenLoc.isMacroID()) {
    FixWithheld = true;
    return *this;
  }
  const SourceManager &SM = Ctx->getSourceManager();
  SourceLocation After =
      Lexer::getLocForEndOfToken(TokenLoc, 0, SM, Ctx->getLangOpts());
  std::pair<FileID, unsigned> At = SM.getDecomposedLoc(After);
  bool Invalid = false;
  llvm::StringRef Buffer = SM.getBufferData(At.first, &Invalid);
  if (!Invalid) {
    llvm::StringRef Rest = Buffer.substr(At.second);
    Rest = Rest.take_until([](char C) { return C == '\n'; });
    Rest.consume_back("\r");
    llvm::StringRef Code = Rest.ltrim(" \t");
    if (Code.empty() || (Code.starts_with("//") && !Code.ends_with("\\")))
      After = After.getLocWithOffset(Rest.size());
  }
  addFix(CharSourceRange::getCharRange(After, After), ("\n" + Line).str());
  return *this;
}

FindingBuilder &FindingBuilder::insertBefore(SourceLocation Loc,
                                             llvm::StringRef Text) {
  addFix(CharSourceRange::getCharRange(Loc, Loc), Text);
  return *this;
}

FindingBuilder &FindingBuilder::replace(SourceRange TokenRange,
                                        llvm::StringRef Text) {
  addFix(CharSourceRange::getTokenRange(TokenRange), Text);
  return *this;
}

FindingBuilder &FindingBuilder::remove(CharSourceRange Range) {
  addFix(Range, "");
  return *this;
}

FindingBuilder &FindingBuilder::recipe(nlohmann::json Recipe) {
  F.Recipe = std::move(Recipe);
  return *this;
}

} // namespace torchlint
