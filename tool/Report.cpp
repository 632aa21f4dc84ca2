#include "Report.h"

#include "llvm/Support/MemoryBuffer.h"

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

} // namespace torchlint
