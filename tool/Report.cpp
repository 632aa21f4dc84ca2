#include "Report.h"
#include "Suppressions.h"

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
  E.LineStarts.push_back(0);
  for (size_t I = 0; I < E.Text.size(); ++I)
    if (E.Text[I] == '\n')
      E.LineStarts.push_back(I + 1);
  return E;
}

const std::string *SourceCache::text(const std::string &Path) {
  Entry &E = entry(Path);
  return E.Readable ? &E.Text : nullptr;
}

llvm::StringRef SourceCache::line(const std::string &Path, unsigned Line) {
  Entry &E = entry(Path);
  if (!E.Readable || Line == 0 || Line > E.LineStarts.size())
    return "";
  size_t Begin = E.LineStarts[Line - 1];
  size_t End = Line < E.LineStarts.size() ? E.LineStarts[Line] - 1
                                          : E.Text.size();
  llvm::StringRef Text(E.Text.data() + Begin, End - Begin);
  return Text.rtrim("\r");
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
