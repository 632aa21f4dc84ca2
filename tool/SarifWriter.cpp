#include "Writers.h"

#include "llvm/ADT/StringExtras.h"

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace torchlint {

const char *torchlintVersion() { return TORCHLINT_VERSION; }

unsigned utf16Column(llvm::StringRef Line, unsigned ByteColumn) {
  unsigned Units = 0;
  size_t Limit = std::min<size_t>(ByteColumn > 0 ? ByteColumn - 1 : 0,
                                  Line.size());
  for (size_t I = 0; I < Limit;) {
    unsigned char C = Line[I];
    size_t Length = C < 0x80 ? 1 : (C >> 5) == 0x6 ? 2 : (C >> 4) == 0xE ? 3
                                  : (C >> 3) == 0x1E ? 4 : 1;
    if (I + Length > Line.size())
      Length = 1;
    Units += Length == 4 ? 2 : 1;
    I += Length;
  }
  // Past the end of the line (an end position after the last character).
  if (ByteColumn > 0 && ByteColumn - 1 > Line.size())
    Units += ByteColumn - 1 - Line.size();
  return Units + 1;
}

std::string fileUri(llvm::StringRef Path) {
  std::string Uri = "file://";
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-._~").contains(C))
      Uri += C;
    else {
      Uri += '%';
      Uri += llvm::hexdigit(C >> 4, /*LowerCase=*/false);
      Uri += llvm::hexdigit(C & 0xF, false);
    }
  }
  return Uri;
}

namespace {

const char *sarifLevel(Level L) {
  switch (L) {
  case Level::Error:
    return "error";
  case Level::Warning:
    return "warning";
  case Level::Note:
    return "note";
  }
  return "warning";
}

json region(const Span &S, SourceCache &Sources) {
  llvm::StringRef BeginLine = Sources.line(S.File, S.Begin.Line);
  llvm::StringRef EndLine = Sources.line(S.File, S.End.Line);
  return {{"startLine", S.Begin.Line},
          {"startColumn", utf16Column(BeginLine, S.Begin.Column)},
          {"endLine", S.End.Line},
          {"endColumn", utf16Column(EndLine, S.End.Column)}};
}

json location(const Span &S, SourceCache &Sources) {
  return {{"physicalLocation",
           {{"artifactLocation", {{"uri", fileUri(S.File)}}},
            {"region", region(S, Sources)}}}};
}

/// Line and column of a byte offset in a file, for fix-it regions.
Span spanOfOffsets(const std::string &File, unsigned Begin, unsigned End,
                   SourceCache &Sources) {
  Span S;
  S.File = File;
  const std::string *Text = Sources.text(File);
  auto Position = [&](unsigned Offset) {
    torchlint::Position P;
    P.Offset = Offset;
    P.Line = 1;
    P.Column = 1;
    if (!Text)
      return P;
    for (unsigned I = 0; I < Offset && I < Text->size(); ++I) {
      if ((*Text)[I] == '\n') {
        ++P.Line;
        P.Column = 1;
      } else {
        ++P.Column;
      }
    }
    return P;
  };
  S.Begin = Position(Begin);
  S.End = Position(End);
  return S;
}

} // namespace

void writeSarif(const Report &R, SourceCache &Sources, llvm::raw_ostream &OS) {
  json Rules = json::array();
  std::map<std::string, unsigned> RuleIndex;
  for (const RuleInfo *Info : R.Rules) {
    RuleIndex[Info->Id] = Rules.size();
    Rules.push_back(
        {{"id", Info->Id},
         {"name", Info->Id},
         {"shortDescription", {{"text", Info->Summary}}},
         {"fullDescription", {{"text", Info->Description}}},
         {"defaultConfiguration", {{"level", sarifLevel(Info->DefaultLevel)}}}});
  }

  json Results = json::array();
  for (const Finding &F : R.Findings) {
    json Result{{"ruleId", F.RuleId},
                {"level", sarifLevel(F.Severity)},
                {"message", {{"text", F.Message}}},
                {"locations", json::array({location(F.Where, Sources)})}};
    if (auto It = RuleIndex.find(F.RuleId); It != RuleIndex.end())
      Result["ruleIndex"] = It->second;
    if (!F.Notes.empty()) {
      json Related = json::array();
      unsigned Id = 1;
      for (const Note &N : F.Notes) {
        json L = location(N.Where, Sources);
        L["id"] = Id++;
        L["message"] = {{"text", N.Message}};
        Related.push_back(std::move(L));
      }
      Result["relatedLocations"] = std::move(Related);
    }
    if (!F.FixIts.empty()) {
      std::map<std::string, json> Changes;
      for (const FixIt &X : F.FixIts) {
        Span Deleted = spanOfOffsets(X.File, X.Offset, X.Offset + X.Length,
                                     Sources);
        Changes[X.File].push_back(
            {{"deletedRegion", region(Deleted, Sources)},
             {"insertedContent", {{"text", X.Replacement}}}});
      }
      json ArtifactChanges = json::array();
      for (auto &[File, Replacements] : Changes)
        ArtifactChanges.push_back(
            {{"artifactLocation", {{"uri", fileUri(File)}}},
             {"replacements", std::move(Replacements)}});
      Result["fixes"] = json::array(
          {{{"description", {{"text", "apply the suggested change"}}},
            {"artifactChanges", std::move(ArtifactChanges)}}});
    }
    if (!F.Recipe.is_null())
      Result["properties"] = {{"replayRecipe", F.Recipe}};
    Results.push_back(std::move(Result));
  }

  json Notifications = json::array();
  for (const AnalysisFailure &Failure : R.Failures)
    Notifications.push_back(
        {{"level", "error"},
         {"message", {{"text", Failure.Message}}},
         {"locations",
          json::array({{{"physicalLocation",
                         {{"artifactLocation",
                           {{"uri", fileUri(Failure.File)}}}}}}})}});

  json Run{{"tool",
            {{"driver",
              {{"name", "torchlint"},
               {"version", torchlintVersion()},
               {"semanticVersion", torchlintVersion()},
               {"rules", std::move(Rules)}}}}},
           {"columnKind", "utf16CodeUnits"},
           {"results", std::move(Results)},
           {"invocations",
            json::array({{{"executionSuccessful", R.Failures.empty()},
                          {"toolExecutionNotifications",
                           std::move(Notifications)}}})}};
  json Log{{"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/"
                       "errata01/os/schemas/sarif-schema-2.1.0.json"},
           {"version", "2.1.0"},
           {"runs", json::array({std::move(Run)})}};
  OS << Log.dump(2) << '\n';
}

} // namespace torchlint
