#include "output/Report.h"
#include "output/Suppressions.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <tuple>

namespace torchlint {

SourceCache::Entry &SourceCache::entry(const std::string &Path) {
  auto [It, Inserted] = Files.try_emplace(Path);
  Entry &E = It->second;
  if (!Inserted)
    return E;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return E;
  E.Readable = true;
  E.Text = (*Buffer)->getBuffer().str();
  E.Lines = LineStarts(E.Text);
  return E;
}

const std::string *SourceCache::text(const std::string &Path) {
  Entry &E = entry(Path);
  return E.Readable ? &E.Text : nullptr;
}

llvm::StringRef SourceCache::line(const std::string &Path, unsigned Line) {
  Entry &E = entry(Path);
  if (!E.Readable || Line == 0 || Line > E.Lines.size())
    return "";
  size_t Begin = E.Lines[Line - 1];
  size_t End = Line < E.Lines.size() ? E.Lines[Line] - 1 : E.Text.size();
  llvm::StringRef Text(E.Text.data() + Begin, End - Begin);
  return Text.rtrim("\r");
}

std::pair<unsigned, unsigned> SourceCache::position(const std::string &Path,
                                                    unsigned Offset) {
  Entry &E = entry(Path);
  if (!E.Readable)
    return {1, 1};
  size_t Clamped = std::min<size_t>(Offset, E.Text.size());
  size_t Line = E.Lines.lineOf(Clamped);
  return {Line + 1, Clamped - E.Lines[Line] + 1};
}

Report buildReport(std::vector<TranslationUnitResult> Results,
                   std::vector<const RuleInfo *> Rules, SourceCache &Sources) {
  Report R;
  R.Rules = std::move(Rules);
  R.TranslationUnits = Results.size();
  for (TranslationUnitResult &Unit : Results) {
    if (Unit.Failure)
      R.Failures.push_back({Unit.File, *Unit.Failure});
    if (Unit.CompileError)
      R.Failures.push_back({Unit.File, *Unit.CompileError, true});
    for (std::string &Warning : Unit.Warnings)
      R.Warnings.push_back({Unit.File, std::move(Warning)});
    R.Digests.insert(Unit.Digests.begin(), Unit.Digests.end());
    for (Finding &F : Unit.Findings) {
      const std::string *Text = Sources.text(F.Where.File);
      if (Text && isSuppressed(*Text, F.Where.Begin.Line, F.RuleId))
        continue;
      R.Findings.push_back(std::move(F));
    }
  }
  // A header included by several units is reported once: one finding per
  // rule and place, even where the units knew different things of it (one
  // saw the caller that passes a GPU, another only a device chosen at run
  // time). Which unit's version is kept must not depend on the order the
  // units finished in: among findings at one place, the one whose notes come
  // first.
  auto NotesBefore = [](const Finding &A, const Finding &B) {
    auto Key = [](const Note &N) {
      return std::tie(N.Where.File, N.Where.Begin.Offset, N.Where.End.Offset,
                      N.Message);
    };
    return std::lexicographical_compare(
        A.Notes.begin(), A.Notes.end(), B.Notes.begin(), B.Notes.end(),
        [&](const Note &X, const Note &Y) { return Key(X) < Key(Y); });
  };
  std::stable_sort(R.Findings.begin(), R.Findings.end(),
                   [&](const Finding &A, const Finding &B) {
                     if (A < B)
                       return true;
                     if (B < A)
                       return false;
                     return NotesBefore(A, B);
                   });
  auto SamePlace = [](const Finding &A, const Finding &B) {
    return A.RuleId == B.RuleId && A.Where.File == B.Where.File &&
           A.Where.Begin.Offset == B.Where.Begin.Offset &&
           A.Where.End.Offset == B.Where.End.Offset;
  };
  R.Findings.erase(std::unique(R.Findings.begin(), R.Findings.end(), SamePlace),
                   R.Findings.end());
  auto ByFile = [](const AnalysisFailure &A, const AnalysisFailure &B) {
    return std::tie(A.File, A.Message) < std::tie(B.File, B.Message);
  };
  std::sort(R.Failures.begin(), R.Failures.end(), ByFile);
  std::sort(R.Warnings.begin(), R.Warnings.end(), ByFile);
  return R;
}

} // namespace torchlint
