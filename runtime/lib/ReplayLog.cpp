#include "ReplayLog.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace torchlint::replay {

using nlohmann::ordered_json;

namespace {

std::string stringAt(const ordered_json &Object, const char *Key) {
  return Object.is_object() && Object.contains(Key) && Object[Key].is_string()
             ? Object[Key].get<std::string>()
             : std::string();
}

int64_t intAt(const ordered_json &Object, const char *Key) {
  return Object.is_object() && Object.contains(Key) &&
                 Object[Key].is_number_integer()
             ? Object[Key].get<int64_t>()
             : 0;
}

} // namespace

ReplayLog ReplayLog::load(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw LogError(Path + ": cannot be read");
  std::ostringstream Text;
  Text << In.rdbuf();
  if (In.bad())
    throw LogError(Path + ": cannot be read");
  return parse(Text.str(), Path);
}

ReplayLog ReplayLog::parse(const std::string &Text, const std::string &Name) {
  ReplayLog Log;
  try {
    Log.Document = ordered_json::parse(Text);
  } catch (const nlohmann::json::exception &E) {
    // A syntax error, or a number too large for a double.
    std::string What = E.what();
    throw LogError(Name + ": not valid JSON (" +
                   What.substr(What.find(' ') + 1) + ")");
  }
  const ordered_json &D = Log.Document;
  if (D.is_object() && D.contains("runs") && D["runs"].is_array()) {
    Log.Kind = Format::Sarif;
    for (const ordered_json &Run : D["runs"])
      if (!Run.is_object() ||
          (Run.contains("results") && !Run["results"].is_array()))
        throw LogError(Name + ": a SARIF run without a results array");
  } else if (D.is_object() && D.contains("findings") &&
             D["findings"].is_array()) {
    Log.Kind = Format::Json;
  } else {
    throw LogError(Name + ": neither a SARIF log (no \"runs\") nor torchlint "
                          "JSON (no \"findings\")");
  }
  return Log;
}

namespace {

std::string sarifLocation(const ordered_json &Result) {
  if (!Result.contains("locations") || !Result["locations"].is_array() ||
      Result["locations"].empty() || !Result["locations"][0].is_object() ||
      !Result["locations"][0].contains("physicalLocation"))
    return "";
  const ordered_json &Physical = Result["locations"][0]["physicalLocation"];
  if (!Physical.is_object())
    return "";
  std::string File = Physical.contains("artifactLocation")
                         ? stringAt(Physical["artifactLocation"], "uri")
                         : "";
  int64_t Line =
      Physical.contains("region") ? intAt(Physical["region"], "startLine") : 0;
  return Line ? File + ":" + std::to_string(Line) : File;
}

} // namespace

std::vector<ReplayItem> ReplayLog::items() const {
  std::vector<ReplayItem> Items;
  if (Kind == Format::Json) {
    const ordered_json &Findings = Document["findings"];
    for (size_t I = 0; I < Findings.size(); ++I) {
      const ordered_json &F = Findings[I];
      if (!F.is_object() || !F.contains("recipe") || !F["recipe"].is_object())
        continue;
      Items.push_back(
          {0, I, stringAt(F, "rule"),
           stringAt(F, "file") + ":" + std::to_string(intAt(F, "line")),
           F["recipe"]});
    }
    return Items;
  }
  const ordered_json &Runs = Document["runs"];
  for (size_t R = 0; R < Runs.size(); ++R) {
    if (!Runs[R].contains("results"))
      continue;
    const ordered_json &Results = Runs[R]["results"];
    for (size_t I = 0; I < Results.size(); ++I) {
      const ordered_json &Result = Results[I];
      if (!Result.is_object() || !Result.contains("properties") ||
          !Result["properties"].is_object() ||
          !Result["properties"].contains("replayRecipe") ||
          !Result["properties"]["replayRecipe"].is_object())
        continue;
      Items.push_back({R, I, stringAt(Result, "ruleId"), sarifLocation(Result),
                       Result["properties"]["replayRecipe"]});
    }
  }
  return Items;
}

ordered_json &ReplayLog::resultAt(size_t Run, size_t Result) {
  if (Kind == Format::Json)
    return Document["findings"][Result];
  return Document["runs"][Run]["results"][Result];
}

namespace {

/// Message with the summary of an earlier replay (recorded in Earlier)
/// taken off, so that replaying a replayed log does not stack summaries.
std::string withoutEarlierSummary(std::string Message,
                                  const ordered_json *Earlier) {
  if (!Earlier || !Earlier->is_object() || !Earlier->contains("summary") ||
      !(*Earlier)["summary"].is_string())
    return Message;
  std::string Suffix = " " + (*Earlier)["summary"].get<std::string>();
  if (Message.size() >= Suffix.size() &&
      Message.compare(Message.size() - Suffix.size(), Suffix.size(), Suffix) ==
          0)
    Message.erase(Message.size() - Suffix.size());
  return Message;
}

} // namespace

void ReplayLog::record(const ReplayItem &Item, const ordered_json &Replay,
                       const std::string &Summary) {
  ordered_json &Result = resultAt(Item.Run, Item.Result);
  ordered_json Recorded = Replay;
  Recorded["summary"] = Summary;
  if (Kind == Format::Json) {
    const ordered_json *Earlier =
        Result.contains("replay") ? &Result["replay"] : nullptr;
    if (Result.contains("message") && Result["message"].is_string())
      Result["message"] =
          withoutEarlierSummary(Result["message"].get<std::string>(), Earlier) +
          " " + Summary;
    Result["replay"] = std::move(Recorded);
    return;
  }
  const ordered_json *Earlier = Result["properties"].contains("replay")
                                    ? &Result["properties"]["replay"]
                                    : nullptr;
  // A message given only by id and arguments has no text to extend.
  if (Result.contains("message") && Result["message"].is_object() &&
      Result["message"].contains("text") &&
      Result["message"]["text"].is_string())
    Result["message"]["text"] =
        withoutEarlierSummary(Result["message"]["text"].get<std::string>(),
                              Earlier) +
        " " + Summary;
  Result["properties"]["replay"] = std::move(Recorded);
}

std::string ReplayLog::text() const { return Document.dump(2) + "\n"; }

void ReplayLog::save(const std::string &Path) const {
  std::string Temporary = Path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream Out(Temporary, std::ios::binary | std::ios::trunc);
    Out << text();
    Out.flush();
    if (!Out) {
      std::remove(Temporary.c_str());
      throw LogError(Path + ": cannot be written");
    }
  }
  if (std::rename(Temporary.c_str(), Path.c_str()) != 0) {
    std::remove(Temporary.c_str());
    throw LogError(Path + ": cannot be written");
  }
}

} // namespace torchlint::replay
