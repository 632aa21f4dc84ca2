#include "output/Writers.h"

#include "output/Fingerprint.h"
#include "output/RuleDocs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace torchlint {

const char *torchlintVersion() { return TORCHLINT_VERSION; }

unsigned utf16Column(llvm::StringRef Line, unsigned ByteColumn) {
  unsigned Units = 0;
  size_t Limit =
      std::min<size_t>(ByteColumn > 0 ? ByteColumn - 1 : 0, Line.size());
  for (size_t I = 0; I < Limit;) {
    unsigned char C = Line[I];
    size_t Length = C < 0x80           ? 1
                    : (C >> 5) == 0x6  ? 2
                    : (C >> 4) == 0xE  ? 3
                    : (C >> 3) == 0x1E ? 4
                                       : 1;
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

std::string relativeUri(llvm::StringRef Path, llvm::StringRef Root) {
  Root = Root.rtrim('/');
  if (Root.empty() || !Path.starts_with(Root) || Path.size() <= Root.size() ||
      Path[Root.size()] != '/')
    return "";
  return percentEncoded(Path.drop_front(Root.size() + 1));
}

namespace {

constexpr const char *SourceRootId = "%SRCROOT%";
constexpr const char *InformationUri = TORCHLINT_HOMEPAGE;

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

/// Literal brackets must be escaped in a message that embeds links.
std::string escapedForLinks(llvm::StringRef Text) {
  std::string Result;
  for (char C : Text) {
    if (C == '[' || C == ']' || C == '\\')
      Result += '\\';
    Result += C;
  }
  return Result;
}

/// A sentence that stands alone: capital first letter, final period.
std::string sentence(llvm::StringRef Text) {
  std::string Result = Text.str();
  if (!Result.empty())
    Result[0] = llvm::toUpper(Result[0]);
  if (!Result.empty() && Result.back() != '.')
    Result += '.';
  return Result;
}

class SarifBuilder {
public:
  SarifBuilder(SourceCache &Sources, const SarifOptions &Options)
      : Sources(Sources), Options(Options) {}

  json artifactLocation(const std::string &Path) const {
    std::string Relative = relativeUri(Path, Options.SourceRoot);
    if (Relative.empty())
      return {{"uri", fileUri(Path)}};
    return {{"uri", Relative}, {"uriBaseId", SourceRootId}};
  }

  json region(const Span &S) const {
    llvm::StringRef BeginLine = Sources.line(S.File, S.Begin.Line);
    llvm::StringRef EndLine = Sources.line(S.File, S.End.Line);
    return {{"startLine", S.Begin.Line},
            {"startColumn", utf16Column(BeginLine, S.Begin.Column)},
            {"endLine", S.End.Line},
            {"endColumn", utf16Column(EndLine, S.End.Column)}};
  }

  json location(const Span &S) const {
    return {{"physicalLocation",
             {{"artifactLocation", artifactLocation(S.File)},
              {"region", region(S)}}}};
  }

  /// Line and column of a byte range, for fix-it regions.
  Span spanOfOffsets(const std::string &File, unsigned Begin,
                     unsigned End) const {
    Span S;
    S.File = File;
    auto At = [&](unsigned Offset) {
      auto [Line, Column] = Sources.position(File, Offset);
      return Position{Offset, Line, Column};
    };
    S.Begin = At(Begin);
    S.End = At(End);
    return S;
  }

  std::string fingerprint(const Finding &F) {
    auto [It, Inserted] = Hashes.try_emplace(F.Where.File);
    if (Inserted)
      if (const std::string *Text = Sources.text(F.Where.File))
        It->second = lineHashes(*Text);
    const std::vector<std::string> &Lines = It->second;
    if (F.Where.Begin.Line == 0 || F.Where.Begin.Line > Lines.size())
      return "";
    return Lines[F.Where.Begin.Line - 1];
  }

  json rule(const RuleInfo &Info) const {
    llvm::StringRef Markdown = ruleDocMarkdown(Info.Id);
    json Tags = json::array();
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    llvm::StringRef(Info.Tags).split(Parts, ',', -1, false);
    for (llvm::StringRef Tag : Parts)
      Tags.push_back(Tag.trim().str());
    json Rule{
        {"id", Info.Id},
        {"name", Info.Name},
        {"shortDescription", {{"text", sentence(Info.Summary)}}},
        {"fullDescription", {{"text", ruleDocLead(Info.Id)}}},
        {"helpUri", ruleDocUri(Info.Id)},
        {"defaultConfiguration",
         {{"level", sarifLevel(Info.DefaultLevel)},
          {"enabled", Info.EnabledByDefault}}},
        {"properties", {{"tags", Tags}, {"precision", Info.Precision}}}};
    if (!Markdown.empty())
      Rule["help"] = {{"text", markdownToText(Markdown)},
                      {"markdown", Markdown.str()}};
    return Rule;
  }

  json result(const Finding &F, const std::map<std::string, unsigned> &Rules) {
    // The first sentence stands alone; the notes follow as links to the
    // related locations.
    std::string Text = sentence(escapedForLinks(F.Message));
    for (size_t I = 0; I < F.Notes.size(); ++I)
      Text += (I == 0 ? " See " : "; ") + std::string("[") +
              escapedForLinks(F.Notes[I].Message) + "](" +
              std::to_string(I + 1) + ")" +
              (I + 1 == F.Notes.size() ? "." : "");
    json Result{{"ruleId", F.RuleId},
                {"level", sarifLevel(F.Severity)},
                {"message", {{"text", Text}}},
                {"locations", json::array({location(F.Where)})}};
    if (auto It = Rules.find(F.RuleId); It != Rules.end())
      Result["ruleIndex"] = It->second;
    if (std::string Hash = fingerprint(F); !Hash.empty())
      Result["partialFingerprints"] = {{"primaryLocationLineHash", Hash}};
    if (!F.Notes.empty()) {
      json Related = json::array();
      for (size_t I = 0; I < F.Notes.size(); ++I) {
        json L = location(F.Notes[I].Where);
        L["id"] = I + 1;
        L["message"] = {{"text", sentence(F.Notes[I].Message)}};
        Related.push_back(std::move(L));
      }
      Result["relatedLocations"] = std::move(Related);
    }
    if (!F.Flow.empty()) {
      json Steps = json::array();
      for (const Note &Step : F.Flow) {
        json L = location(Step.Where);
        L["message"] = {{"text", sentence(Step.Message)}};
        Steps.push_back({{"location", std::move(L)}});
      }
      Result["codeFlows"] =
          json::array({{{"threadFlows",
                         json::array({{{"locations", std::move(Steps)}}})}}});
    }
    if (!F.FixIts.empty()) {
      std::map<std::string, json> Changes;
      for (const FixIt &X : F.FixIts)
        Changes[X.File].push_back(
            {{"deletedRegion",
              region(spanOfOffsets(X.File, X.Offset, X.Offset + X.Length))},
             {"insertedContent", {{"text", X.Replacement}}}});
      json ArtifactChanges = json::array();
      for (auto &[File, Replacements] : Changes)
        ArtifactChanges.push_back({{"artifactLocation", artifactLocation(File)},
                                   {"replacements", std::move(Replacements)}});
      Result["fixes"] = json::array(
          {{{"description", {{"text", "Apply the suggested change."}}},
            {"artifactChanges", std::move(ArtifactChanges)}}});
    }
    if (!F.Recipe.is_null())
      Result["properties"] = {{"replayRecipe", F.Recipe}};
    return Result;
  }

private:
  SourceCache &Sources;
  const SarifOptions &Options;
  std::map<std::string, std::vector<std::string>> Hashes;
};

} // namespace

void writeSarif(const Report &R, SourceCache &Sources,
                const SarifOptions &Options, llvm::raw_ostream &OS) {
  SarifBuilder Builder(Sources, Options);
  json Rules = json::array();
  std::map<std::string, unsigned> RuleIndex;
  for (const RuleInfo *Info : R.Rules) {
    RuleIndex[Info->Id] = Rules.size();
    Rules.push_back(Builder.rule(*Info));
  }

  json Results = json::array();
  for (const Finding &F : R.Findings)
    Results.push_back(Builder.result(F, RuleIndex));

  json Notifications = json::array();
  auto Notify = [&](const AnalysisFailure &About, const char *Level) {
    Notifications.push_back(
        {{"level", Level},
         {"message", {{"text", sentence(About.Message)}}},
         {"locations",
          json::array({{{"physicalLocation",
                         {{"artifactLocation",
                           Builder.artifactLocation(About.File)}}}}})}});
  };
  for (AnalysisFailure Failure : R.Failures) {
    if (Failure.AnalyzedInPart)
      Failure.Message = "Analyzed only where clang recovered from the "
                        "unit's compile errors, without fix-its: " +
                        Failure.Message;
    Notify(Failure, "error");
  }
  for (const AnalysisFailure &Warning : R.Warnings)
    Notify(Warning, "warning");

  json Run{{"tool",
            {{"driver",
              {{"name", "torchlint"},
               {"version", torchlintVersion()},
               {"semanticVersion", torchlintVersion()},
               {"informationUri", InformationUri},
               {"rules", std::move(Rules)}}}}},
           {"columnKind", "utf16CodeUnits"},
           {"results", std::move(Results)},
           {"invocations",
            json::array(
                {{{"executionSuccessful", R.Failures.empty()},
                  {"toolExecutionNotifications", std::move(Notifications)}}})}};
  if (!Options.SourceRoot.empty() && Options.WriteRootUri)
    Run["originalUriBaseIds"] = {
        {SourceRootId,
         {{"uri", fileUri(llvm::StringRef(Options.SourceRoot).rtrim('/').str() +
                          "/")}}}};
  if (!Options.Category.empty())
    Run["automationDetails"] = {{"id", Options.Category}};

  json Log{{"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/"
                       "errata01/os/schemas/sarif-schema-2.1.0.json"},
           {"version", "2.1.0"},
           {"runs", json::array({std::move(Run)})}};
  OS << Log.dump(2) << '\n';
}

std::string resultKey(const Finding &F, SourceCache &Sources,
                      const std::string &SourceRoot) {
  SarifOptions Options{SourceRoot, ""};
  SarifBuilder Builder(Sources, Options);
  json Location = Builder.artifactLocation(F.Where.File);
  return F.RuleId + "\n" + Location["uri"].get<std::string>() + "\n" +
         Builder.fingerprint(F);
}

llvm::Expected<std::set<std::string>>
readBaselineKeys(const std::string &Path) {
  auto Problem = [&](const llvm::Twine &What) {
    return llvm::createStringError(std::errc::invalid_argument, "%s: %s",
                                   Path.c_str(), What.str().c_str());
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return Problem("cannot read the baseline: " + Buffer.getError().message());
  json Log = json::parse((*Buffer)->getBuffer().begin(),
                         (*Buffer)->getBuffer().end(), nullptr,
                         /*allow_exceptions=*/false);
  if (Log.is_discarded() || !Log.is_object() || !Log.contains("runs") ||
      !Log["runs"].is_array())
    return Problem("not a SARIF log");
  // Every step is checked: the baseline is a file from elsewhere.
  auto Member = [](const json *Object, const char *Key) -> const json * {
    if (!Object || !Object->is_object())
      return nullptr;
    auto It = Object->find(Key);
    return It == Object->end() ? nullptr : &*It;
  };
  auto First = [](const json *Array) -> const json * {
    return Array && Array->is_array() && !Array->empty() ? &(*Array)[0]
                                                         : nullptr;
  };
  std::set<std::string> Keys;
  for (const json &Run : Log["runs"]) {
    const json *Results = Member(&Run, "results");
    if (!Results || !Results->is_array())
      continue;
    for (const json &Result : *Results) {
      const json *Rule = Member(&Result, "ruleId");
      const json *Uri =
          Member(Member(Member(First(Member(&Result, "locations")),
                               "physicalLocation"),
                        "artifactLocation"),
                 "uri");
      const json *Hash = Member(Member(&Result, "partialFingerprints"),
                                "primaryLocationLineHash");
      if (Rule && Rule->is_string() && Uri && Uri->is_string() && Hash &&
          Hash->is_string())
        Keys.insert(Rule->get<std::string>() + "\n" + Uri->get<std::string>() +
                    "\n" + Hash->get<std::string>());
    }
  }
  return Keys;
}

} // namespace torchlint
