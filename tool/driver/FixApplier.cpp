#include "driver/FixApplier.h"

#include "cache/AtomicFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace torchlint {

bool normalizeFixes(std::vector<FixIt> &Fixes) {
  auto Key = [](const FixIt &F) {
    return std::tie(F.Offset, F.Length, F.Replacement);
  };
  std::sort(Fixes.begin(), Fixes.end(),
            [&](const FixIt &A, const FixIt &B) { return Key(A) < Key(B); });
  Fixes.erase(std::unique(Fixes.begin(), Fixes.end(),
                          [&](const FixIt &A, const FixIt &B) {
                            return Key(A) == Key(B);
                          }),
              Fixes.end());
  for (size_t I = 1; I < Fixes.size(); ++I) {
    const FixIt &Prev = Fixes[I - 1];
    const FixIt &Next = Fixes[I];
    if (Prev.Offset + Prev.Length > Next.Offset)
      return false;
    // Two insertions at one place: their order would be a guess.
    if (Prev.Offset == Next.Offset && Prev.Length == 0 && Next.Length == 0)
      return false;
  }
  return true;
}

std::string applyToText(const std::string &Text, std::vector<FixIt> Fixes) {
  std::string Result;
  Result.reserve(Text.size() + 64);
  size_t Cursor = 0;
  for (const FixIt &Fix : Fixes) {
    if (Fix.Offset > Text.size())
      break;
    Result.append(Text, Cursor, Fix.Offset - Cursor);
    Result += Fix.Replacement;
    Cursor = std::min<size_t>(Fix.Offset + Fix.Length, Text.size());
  }
  Result.append(Text, Cursor, std::string::npos);
  return Result;
}

uint64_t textDigest(llvm::StringRef Text) { return llvm::xxh3_64bits(Text); }

namespace {

/// The file's first line ends with CRLF.
bool usesCrlf(const std::string &Text) {
  size_t Newline = Text.find('\n');
  return Newline != std::string::npos && Newline > 0 &&
         Text[Newline - 1] == '\r';
}

std::string withCrlf(const std::string &Replacement) {
  std::string Result;
  for (size_t I = 0; I < Replacement.size(); ++I) {
    if (Replacement[I] == '\n' && (I == 0 || Replacement[I - 1] != '\r'))
      Result += '\r';
    Result += Replacement[I];
  }
  return Result;
}

/// Not writable by us, or marked read-only by its owner (which root would
/// otherwise write through).
bool isReadOnly(const std::string &Path) {
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status))
    return true;
  return !(Status.permissions() & llvm::sys::fs::owner_write) ||
         llvm::sys::fs::access(Path, llvm::sys::fs::AccessMode::Write);
}

} // namespace

void matchLineBreaks(const std::string &Text, std::vector<FixIt> &Fixes) {
  if (usesCrlf(Text))
    for (FixIt &Fix : Fixes)
      Fix.Replacement = withCrlf(Fix.Replacement);
}

FixOutcome applyFixes(const std::vector<Finding> &Findings,
                      SourceCache &Sources,
                      const std::map<std::string, uint64_t> &Analyzed) {
  std::map<std::string, std::vector<FixIt>> ByFile;
  for (const Finding &F : Findings)
    for (const FixIt &X : F.FixIts)
      ByFile[X.File].push_back(X);

  FixOutcome Outcome;
  for (auto &[File, Fixes] : ByFile) {
    if (!normalizeFixes(Fixes)) {
      Outcome.Refused.push_back(File +
                                ": fix-its overlap; file left untouched");
      continue;
    }
    const std::string *Text = Sources.text(File);
    if (!Text) {
      Outcome.Refused.push_back(File + ": cannot read; file left untouched");
      continue;
    }
    auto Digest = Analyzed.find(File);
    if (Fixes.back().Offset + Fixes.back().Length > Text->size() ||
        (Digest != Analyzed.end() && Digest->second != textDigest(*Text))) {
      Outcome.Refused.push_back(
          File + ": changed since it was analyzed; file left untouched");
      continue;
    }
    if (isReadOnly(File)) {
      Outcome.Refused.push_back(File + ": is read-only; file left untouched");
      continue;
    }
    matchLineBreaks(*Text, Fixes);
    std::string Fixed = applyToText(*Text, Fixes);
    if (std::string Error = writeAtomically(File, Fixed); !Error.empty()) {
      Outcome.Refused.push_back(File + ": " + Error + "; file left untouched");
      continue;
    }
    Sources.forget(File);
    Outcome.Applied += Fixes.size();
    Outcome.ChangedFiles.push_back(File);
  }
  return Outcome;
}

} // namespace torchlint
