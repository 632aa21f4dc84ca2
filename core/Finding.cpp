#include "core/Finding.h"

#include <tuple>

namespace torchlint {

const char *levelName(Level L) {
  switch (L) {
  case Level::Note:
    return "note";
  case Level::Warning:
    return "warning";
  case Level::Error:
    return "error";
  }
  return "warning";
}

std::optional<Level> parseLevel(const std::string &Name) {
  if (Name == "note")
    return Level::Note;
  if (Name == "warning")
    return Level::Warning;
  if (Name == "error")
    return Level::Error;
  return std::nullopt;
}

static auto orderKey(const Finding &F) {
  return std::tie(F.Where.File, F.Where.Begin.Line, F.Where.Begin.Column,
                  F.RuleId, F.Message, F.Where.End.Offset);
}

bool operator<(const Finding &A, const Finding &B) {
  return orderKey(A) < orderKey(B);
}

bool operator==(const Finding &A, const Finding &B) {
  return orderKey(A) == orderKey(B);
}

nlohmann::json toJson(const Span &S) {
  return {{"file", S.File},           {"line", S.Begin.Line},
          {"column", S.Begin.Column}, {"offset", S.Begin.Offset},
          {"endLine", S.End.Line},    {"endColumn", S.End.Column},
          {"endOffset", S.End.Offset}};
}

nlohmann::json toJson(const Finding &F) {
  nlohmann::json J = toJson(F.Where);
  J["rule"] = F.RuleId;
  J["level"] = levelName(F.Severity);
  J["message"] = F.Message;
  J["notes"] = nlohmann::json::array();
  for (const Note &N : F.Notes) {
    nlohmann::json NJ = toJson(N.Where);
    NJ["message"] = N.Message;
    J["notes"].push_back(std::move(NJ));
  }
  J["fixes"] = nlohmann::json::array();
  for (const FixIt &X : F.FixIts)
    J["fixes"].push_back({{"file", X.File},
                          {"offset", X.Offset},
                          {"length", X.Length},
                          {"replacement", X.Replacement}});
  J["flow"] = nlohmann::json::array();
  for (const Note &N : F.Flow) {
    nlohmann::json NJ = toJson(N.Where);
    NJ["message"] = N.Message;
    J["flow"].push_back(std::move(NJ));
  }
  if (!F.Recipe.is_null())
    J["recipe"] = F.Recipe;
  return J;
}

Span spanFromJson(const nlohmann::json &J) {
  Span S;
  S.File = J.at("file").get<std::string>();
  S.Begin = {J.at("offset").get<unsigned>(), J.at("line").get<unsigned>(),
             J.at("column").get<unsigned>()};
  S.End = {J.at("endOffset").get<unsigned>(), J.at("endLine").get<unsigned>(),
           J.at("endColumn").get<unsigned>()};
  return S;
}

static std::vector<Note> notesFromJson(const nlohmann::json &List) {
  std::vector<Note> Notes;
  for (const nlohmann::json &N :
       List.get_ref<const nlohmann::json::array_t &>())
    Notes.push_back({spanFromJson(N), N.at("message").get<std::string>()});
  return Notes;
}

Finding findingFromJson(const nlohmann::json &J) {
  Finding F;
  F.Where = spanFromJson(J);
  F.RuleId = J.at("rule").get<std::string>();
  std::optional<Level> Severity = parseLevel(J.at("level").get<std::string>());
  if (!Severity)
    throw nlohmann::json::other_error::create(501, "unknown level", &J);
  F.Severity = *Severity;
  F.Message = J.at("message").get<std::string>();
  F.Notes = notesFromJson(J.at("notes"));
  for (const nlohmann::json &X :
       J.at("fixes").get_ref<const nlohmann::json::array_t &>())
    F.FixIts.push_back({X.at("file").get<std::string>(),
                        X.at("offset").get<unsigned>(),
                        X.at("length").get<unsigned>(),
                        X.at("replacement").get<std::string>()});
  F.Flow = notesFromJson(J.at("flow"));
  if (J.contains("recipe"))
    F.Recipe = J.at("recipe");
  return F;
}

} // namespace torchlint
