#include "output/RuleDocs.h"

#include "llvm/ADT/SmallVector.h"

namespace torchlint {

namespace {
struct Page {
  const char *Id;
  const char *Markdown;
};
const Page Pages[] = {
#include "RuleDocs.inc"
};
} // namespace

llvm::StringRef ruleDocMarkdown(llvm::StringRef RuleId) {
  for (const Page &P : Pages)
    if (RuleId == P.Id)
      return P.Markdown;
  return "";
}

std::string ruleDocLead(llvm::StringRef RuleId, size_t MaxSize) {
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  ruleDocMarkdown(RuleId).split(Lines, '\n');
  std::string Lead;
  bool PastLevel = false;
  for (llvm::StringRef Line : Lines) {
    Line = Line.trim();
    if (Line.starts_with("## "))
      break;
    if (Line.starts_with("# ") || Line.starts_with("**Level:**")) {
      PastLevel |= Line.starts_with("**Level:**");
      continue;
    }
    if (!PastLevel)
      continue;
    if (Line.empty()) {
      if (!Lead.empty() && !llvm::StringRef(Lead).ends_with("\n\n"))
        Lead += "\n\n";
      continue;
    }
    if (!Lead.empty() && !llvm::StringRef(Lead).ends_with("\n"))
      Lead += Line.starts_with("- ") ? '\n' : ' ';
    Lead += markdownToText(Line);
  }
  while (!Lead.empty() && Lead.back() == '\n')
    Lead.pop_back();
  if (Lead.size() > MaxSize) {
    size_t Cut = llvm::StringRef(Lead).substr(0, MaxSize).rfind(". ");
    Lead.resize(Cut == llvm::StringRef::npos ? MaxSize : Cut + 1);
  }
  return Lead;
}

std::string markdownToText(llvm::StringRef Markdown) {
  std::string Text;
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  Markdown.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    if (Line.trim().starts_with("```"))
      continue; // fences; the code inside is kept as it is
    while (Line.starts_with("#"))
      Line = Line.drop_front();
    Line = Line.ltrim(Line.empty() || Line.front() != ' ' ? "" : " ");
    for (size_t I = 0; I < Line.size(); ++I) {
      char C = Line[I];
      if (C == '`')
        continue;
      if (C == '*' && I + 1 < Line.size() && Line[I + 1] == '*') {
        ++I;
        continue;
      }
      // [text](url) -> text (url)
      if (C == '[') {
        size_t Close = Line.find("](", I);
        size_t End = Close == llvm::StringRef::npos ? Close : Line.find(')', Close);
        if (End != llvm::StringRef::npos) {
          Text += Line.substr(I + 1, Close - I - 1).str();
          Text += " (" + Line.substr(Close + 2, End - Close - 2).str() + ")";
          I = End;
          continue;
        }
      }
      Text += C;
    }
    Text += '\n';
  }
  while (!Text.empty() && Text.back() == '\n')
    Text.pop_back();
  return Text;
}

std::string ruleDocUri(llvm::StringRef RuleId) {
  return std::string(TORCHLINT_HOMEPAGE) + "/blob/main/docs/rules/" +
         RuleId.str() + ".md";
}

} // namespace torchlint
