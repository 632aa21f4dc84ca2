#include "Diagnostics.h"

#include "output/Report.h"
#include "output/RuleDocs.h"

#include <map>
#include <memory>
#include <tuple>

namespace torchlint::lsp {

using nlohmann::json;

namespace {

int lspSeverity(Level L) {
  switch (L) {
  case Level::Error:
    return 1;
  case Level::Warning:
    return 2;
  case Level::Note:
    return 3; // Information: clang's notes are not problems of their own.
  }
  return 2;
}

bool before(const json &A, const json &B) {
  return std::make_tuple(A.at("line").get<int64_t>(),
                         A.at("character").get<int64_t>()) <
         std::make_tuple(B.at("line").get<int64_t>(),
                         B.at("character").get<int64_t>());
}

} // namespace

json toDiagnostic(const Finding &F, const TextPositions &Positions) {
  json D = {
      {"range", Positions.range(F.Where.Begin.Offset, F.Where.End.Offset)},
      {"severity", lspSeverity(F.Severity)},
      {"code", F.RuleId},
      {"codeDescription", {{"href", ruleDocUri(F.RuleId)}}},
      {"source", "torchlint"},
      {"message", F.Message}};
  if (F.Notes.empty())
    return D;
  json Related = json::array();
  std::map<std::string, std::unique_ptr<TextPositions>> Others;
  for (const Note &N : F.Notes) {
    const TextPositions *In = &Positions;
    if (N.Where.File != F.Where.File) {
      std::unique_ptr<TextPositions> &Other = Others[N.Where.File];
      if (!Other)
        Other = std::make_unique<TextPositions>(
            fileText(N.Where.File).value_or(""), Positions.encoding());
      In = Other.get();
    }
    Related.push_back(
        {{"location",
          {{"uri", uriFromPath(N.Where.File)},
           {"range", In->range(N.Where.Begin.Offset, N.Where.End.Offset)}}},
         {"message", N.Message}});
  }
  D["relatedInformation"] = std::move(Related);
  return D;
}

bool rangesIntersect(const json &A, const json &B) {
  return !before(A.at("end"), B.at("start")) &&
         !before(B.at("end"), A.at("start"));
}

std::string codeActionTitle(const Finding &F) {
  const std::string &Message = F.Message;
  size_t End = std::min(Message.find(", "), Message.find(" ("));
  return "fix " + F.RuleId + ": " + Message.substr(0, End);
}

std::optional<std::string> fileText(const std::string &Path) {
  SourceCache Sources;
  if (const std::string *Text = Sources.text(Path))
    return *Text;
  return std::nullopt;
}

} // namespace torchlint::lsp
