#include "RuleCheck.h"

#include "analysis/DebugRegions.h"

#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/StaticAnalyzer/Core/AnalyzerOptions.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace torchlint {

/// A rule's options, from .clang-tidy CheckOptions: the key
/// "<rule-id>.<Option>" is the check's local option "<Option>".
class RuleCheck::CheckOptions : public RuleOptions {
public:
  explicit CheckOptions(const ClangTidyCheck::OptionsView &View,
                        llvm::StringRef RuleId)
      : View(View), Prefix((RuleId + ".").str()) {}

  std::optional<std::string> get(llvm::StringRef Key) const override {
    if (!Key.consume_front(Prefix))
      return std::nullopt;
    if (std::optional<llvm::StringRef> Value = View.get(Key))
      return Value->str();
    return std::nullopt;
  }

private:
  const ClangTidyCheck::OptionsView &View;
  std::string Prefix;
};

namespace {
/// Whether every check clang-tidy runs is one of the plugin's. Only then may
/// the traversal leave out system headers: another check may want to match
/// there, and the static analyzer walks the unit itself.
bool onlyTorchlintChecks(tidy::ClangTidyContext &Context) {
  tidy::ClangTidyCheckFactories Factories;
  for (const tidy::ClangTidyModuleRegistry::entry &Module :
       tidy::ClangTidyModuleRegistry::entries())
    Module.instantiate()->addCheckFactories(Factories);
  for (const auto &Factory : Factories)
    if (Context.isCheckEnabled(Factory.getKey()) && !findRule(Factory.getKey()))
      return false;
  for (llvm::StringRef Checker :
       AnalyzerOptions::getRegisteredCheckers(/*IncludeExperimental=*/true))
    if (Context.isCheckEnabled(("clang-analyzer-" + Checker).str()))
      return false;
  return true;
}
} // namespace

/// Matches the translation unit, which is visited before anything in it, and
/// narrows the traversal to the top-level declarations of user code, as the
/// CLI's is: libtorch's declarations are neither matched nor loaded from a
/// precompiled header, which is most of the time a check takes.
class RuleCheck::UserCodeScope
    : public ast_matchers::MatchFinder::MatchCallback {
public:
  explicit UserCodeScope(const UserCode &Code) : Code(Code) {}

  void run(const ast_matchers::MatchFinder::MatchResult &Result) override {
    ASTContext &Ctx = *Result.Context;
    std::vector<Decl *> TopLevel;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (Code.isAnalyzed(D->getLocation(), Ctx.getSourceManager()))
        TopLevel.push_back(D);
    Ctx.setTraversalScope(TopLevel);
    Narrowed = &Ctx;
  }

  // What runs after the checks sees the whole unit again.
  void onEndOfTranslationUnit() override {
    if (Narrowed)
      Narrowed->setTraversalScope({Narrowed->getTranslationUnitDecl()});
    Narrowed = nullptr;
  }

private:
  const UserCode &Code;
  ASTContext *Narrowed = nullptr;
};

/// What the checks of one translation unit share: the user-code filter and
/// the AnalysisContext. Findings go back to the check of their rule, option
/// look-ups to the options of the rule that the key names.
class RuleCheck::SharedUnit : public FindingSink, public RuleOptions {
public:
  SharedUnit() : Analysis(Code, *this, this) {
    Analysis.useDebugRegions(&Debug);
  }

  /// Every check of a unit is given its preprocessor; the first records.
  void recordDebugRegions(const SourceManager &SM, Preprocessor &PP) {
    if (RecordingFor == &PP)
      return;
    RecordingFor = &PP;
    PP.addPPCallbacks(Debug.recorder(SM, PP.getLangOpts()));
  }

  void join(RuleCheck &Check) { Checks[Check.Entry.Info.Id] = &Check; }
  void leave(RuleCheck &Check) { Checks.erase(Check.Entry.Info.Id); }

  /// The first check of a unit to register narrows the traversal, when
  /// nothing but torchlint's checks runs.
  void narrowTraversal(ast_matchers::MatchFinder &Finder,
                       tidy::ClangTidyContext &Context) {
    if (NarrowedFinder == &Finder)
      return;
    NarrowedFinder = &Finder;
    if (!onlyTorchlintChecks(Context))
      return;
    Scope = std::make_unique<UserCodeScope>(Code);
    Finder.addMatcher(ast_matchers::translationUnitDecl(), Scope.get());
  }

  AnalysisContext &analysis() { return Analysis; }

  void consume(Finding F) override {
    if (RuleCheck *Check = Checks.lookup(F.RuleId))
      Check->consume(std::move(F));
  }

  // clang-tidy has no channel for a tool warning that is not a diagnostic
  // of a check: it goes where clang-tidy's own messages go.
  void notice(const std::string &Message) override {
    llvm::errs() << "torchlint: warning: " << Message << '\n';
  }

  std::optional<std::string> get(llvm::StringRef Key) const override {
    if (RuleCheck *Check = Checks.lookup(Key.split('.').first))
      return Check->Options->get(Key);
    return std::nullopt;
  }

private:
  UserCode Code;
  DebugRegions Debug;
  const Preprocessor *RecordingFor = nullptr;
  const ast_matchers::MatchFinder *NarrowedFinder = nullptr;
  std::unique_ptr<UserCodeScope> Scope;
  AnalysisContext Analysis;
  llvm::StringMap<RuleCheck *> Checks;
};

std::shared_ptr<RuleCheck::SharedUnit>
RuleCheck::sharedUnitOf(tidy::ClangTidyContext *Context) {
  static llvm::DenseMap<tidy::ClangTidyContext *,
                        std::weak_ptr<RuleCheck::SharedUnit>>
      Units;
  std::weak_ptr<RuleCheck::SharedUnit> &Slot = Units[Context];
  std::shared_ptr<RuleCheck::SharedUnit> Unit = Slot.lock();
  if (!Unit) {
    Unit = std::make_shared<RuleCheck::SharedUnit>();
    Slot = Unit;
  }
  return Unit;
}

RuleCheck::RuleCheck(llvm::StringRef Name, tidy::ClangTidyContext *Context,
                     const RuleEntry &Entry)
    : ClangTidyCheck(Name, Context), Entry(Entry), TidyContext(Context),
      Options(std::make_unique<CheckOptions>(ClangTidyCheck::Options,
                                             Entry.Info.Id)) {
  // A rule reads its options once, as it is made; clang-tidy's typed read
  // reports a value that is not a number, once per check.
  for (const RuleOptionInfo &Option : Entry.Info.Options)
    (void)ClangTidyCheck::Options.get<unsigned>(Option.Name, Option.Default);
}

RuleCheck::~RuleCheck() {
  // The rule goes first: it may still hold on to the shared analyses.
  Instance.reset();
  if (Unit)
    Unit->leave(*this);
}

void RuleCheck::registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                                    Preprocessor *) {
  this->SM = &SM;
  if (!Unit)
    Unit = sharedUnitOf(TidyContext);
  if (PP)
    Unit->recordDebugRegions(SM, *PP);
}

void RuleCheck::registerMatchers(ast_matchers::MatchFinder *Finder) {
  Unit = sharedUnitOf(TidyContext);
  Unit->join(*this);
  Unit->narrowTraversal(*Finder, *TidyContext);
  Instance = Entry.Create(Unit->analysis());
  Instance->registerMatchers(Finder);
}

void RuleCheck::storeOptions(tidy::ClangTidyOptions::OptionMap &Opts) {
  // clang-tidy's typed read says itself when a value is not a number.
  for (const RuleOptionInfo &Option : Entry.Info.Options)
    ClangTidyCheck::Options.store(
        Opts, Option.Name,
        ClangTidyCheck::Options.get<unsigned>(Option.Name, Option.Default));
}

SourceLocation RuleCheck::locate(const std::string &File,
                                 unsigned Offset) const {
  if (!SM)
    return SourceLocation();
  llvm::Expected<FileEntryRef> Entry =
      SM->getFileManager().getFileRef(File, /*OpenFile=*/false);
  if (!Entry) {
    llvm::consumeError(Entry.takeError());
    return SourceLocation();
  }
  FileID ID = SM->translateFile(*Entry);
  if (ID.isInvalid())
    return SourceLocation();
  return SM->getComposedLoc(ID, Offset);
}

namespace {
/// Findings carry plain text; clang's diagnostics treat % as a format.
std::string escaped(llvm::StringRef Text) {
  std::string Result;
  for (char C : Text) {
    if (C == '%')
      Result += '%';
    Result += C;
  }
  return Result;
}

DiagnosticIDs::Level diagnosticLevel(Level L) {
  switch (L) {
  case Level::Error:
    return DiagnosticIDs::Error;
  case Level::Warning:
    return DiagnosticIDs::Warning;
  case Level::Note:
    // A top-level note would be attached to the previous diagnostic.
    return DiagnosticIDs::Remark;
  }
  return DiagnosticIDs::Warning;
}
} // namespace

void RuleCheck::consume(Finding F) {
  SourceLocation Begin = locate(F.Where.File, F.Where.Begin.Offset);
  if (Begin.isInvalid())
    return;
  SourceLocation End = locate(F.Where.File, F.Where.End.Offset);
  {
    DiagnosticBuilder Diag =
        diag(Begin, escaped(F.Message), diagnosticLevel(F.Severity));
    if (End.isValid())
      Diag << CharSourceRange::getCharRange(Begin, End);
    for (const FixIt &X : F.FixIts) {
      SourceLocation From = locate(X.File, X.Offset);
      SourceLocation To = locate(X.File, X.Offset + X.Length);
      if (From.isInvalid() || To.isInvalid())
        continue;
      Diag << FixItHint::CreateReplacement(
          CharSourceRange::getCharRange(From, To), X.Replacement);
    }
  }
  for (const Note &N : F.Notes) {
    SourceLocation NoteBegin = locate(N.Where.File, N.Where.Begin.Offset);
    if (NoteBegin.isInvalid())
      continue;
    SourceLocation NoteEnd = locate(N.Where.File, N.Where.End.Offset);
    DiagnosticBuilder Diag =
        diag(NoteBegin, escaped(N.Message), DiagnosticIDs::Note);
    if (NoteEnd.isValid())
      Diag << CharSourceRange::getCharRange(NoteBegin, NoteEnd);
  }
}

} // namespace torchlint
