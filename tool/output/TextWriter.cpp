#include "output/Writers.h"

#include "llvm/Support/WithColor.h"

namespace torchlint {

namespace {

using Colors = llvm::raw_ostream::Colors;

Colors levelColor(Level L) {
  switch (L) {
  case Level::Error:
    return Colors::RED;
  case Level::Warning:
    return Colors::MAGENTA;
  case Level::Note:
    return Colors::BLACK;
  }
  return Colors::BLACK;
}

class Printer {
public:
  Printer(SourceCache &Sources, llvm::raw_ostream &OS, bool Color)
      : Sources(Sources), OS(OS), Color(Color) {}

  void header(const Span &Where, Level L, llvm::StringRef Message,
              llvm::StringRef RuleId) {
    colored(Colors::SAVEDCOLOR, true, [&] {
      OS << Where.File << ':' << Where.Begin.Line << ':' << Where.Begin.Column
         << ": ";
    });
    colored(levelColor(L), true, [&] { OS << levelName(L) << ": "; });
    colored(Colors::SAVEDCOLOR, true, [&] { OS << Message; });
    if (!RuleId.empty())
      OS << " [" << RuleId << ']';
    OS << '\n';
  }

  /// The source line, the caret and underline, and what fix-its on that
  /// line would insert.
  void snippet(const Span &Where, llvm::ArrayRef<FixIt> Fixes) {
    llvm::StringRef Line = Sources.line(Where.File, Where.Begin.Line);
    if (Line.empty() && !Sources.text(Where.File))
      return;
    std::string Gutter = std::to_string(Where.Begin.Line);
    if (Gutter.size() < 5)
      Gutter.insert(0, 5 - Gutter.size(), ' ');
    std::string Blank(Gutter.size(), ' ');
    OS << Gutter << " | " << Line << '\n';

    // Keep tabs from the source so that the caret lines up with it.
    auto Pad = [&](unsigned Column) {
      std::string Padding;
      for (unsigned I = 0; I + 1 < Column && I < Line.size(); ++I)
        Padding += Line[I] == '\t' ? '\t' : ' ';
      for (unsigned I = Line.size(); I + 1 < Column; ++I)
        Padding += ' ';
      return Padding;
    };
    unsigned Begin = Where.Begin.Column;
    unsigned End = Where.End.Line == Where.Begin.Line
                       ? Where.End.Column
                       : static_cast<unsigned>(Line.size()) + 1;
    std::string Marker = "^";
    for (unsigned C = Begin + 1; C < End; ++C)
      Marker += '~';
    OS << Blank << " | " << Pad(Begin);
    colored(Colors::GREEN, true, [&] { OS << Marker; });
    OS << '\n';

    for (const FixIt &Fix : Fixes) {
      if (Fix.File != Where.File || Fix.Replacement.find('\n') != std::string::npos)
        continue;
      unsigned Column = fixColumn(Fix, Where);
      if (Column == 0)
        continue;
      OS << Blank << " | " << Pad(Column);
      colored(Colors::GREEN, false, [&] { OS << Fix.Replacement; });
      OS << '\n';
    }
  }

private:
  /// The column of a fix-it on the finding's line, or 0 when it is elsewhere.
  unsigned fixColumn(const FixIt &Fix, const Span &Where) {
    if (Fix.Offset < Where.Begin.Offset - (Where.Begin.Column - 1))
      return 0;
    unsigned LineStart = Where.Begin.Offset - (Where.Begin.Column - 1);
    llvm::StringRef Line = Sources.line(Where.File, Where.Begin.Line);
    if (Fix.Offset > LineStart + Line.size())
      return 0;
    return Fix.Offset - LineStart + 1;
  }

  template <typename Fn> void colored(Colors C, bool Bold, Fn Body) {
    if (Color)
      OS.changeColor(C, Bold);
    Body();
    if (Color)
      OS.resetColor();
  }

  SourceCache &Sources;
  llvm::raw_ostream &OS;
  bool Color;
};

} // namespace

void writeText(const Report &R, SourceCache &Sources, llvm::raw_ostream &OS,
               bool Color) {
  Printer P(Sources, OS, Color);
  for (const Finding &F : R.Findings) {
    P.header(F.Where, F.Severity, F.Message, F.RuleId);
    P.snippet(F.Where, F.FixIts);
    for (const Note &N : F.Notes) {
      P.header(N.Where, Level::Note, N.Message, "");
      P.snippet(N.Where, {});
    }
  }
}

} // namespace torchlint
