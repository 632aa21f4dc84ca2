#include "analysis/Summaries.h"

#include "analysis/DeviceFlow.h"

#include <algorithm>
#include <tuple>

namespace torchlint {

namespace {
auto orderKey(const RemoteFact &F) {
  std::tuple<std::string, unsigned, unsigned> Where;
  if (F.Where)
    Where = {F.Where->File, F.Where->Begin.Offset, F.Where->End.Offset};
  return std::make_tuple(static_cast<int>(F.Kind), F.Index,
                         static_cast<int>(F.How), F.Pinned, F.RunTimeChoice,
                         F.Where.has_value(), Where);
}
} // namespace

bool RemoteFact::operator<(const RemoteFact &O) const {
  return orderKey(*this) < orderKey(O);
}

bool RemoteFact::operator==(const RemoteFact &O) const {
  return orderKey(*this) == orderKey(O);
}

void mergeRemoteFacts(RemoteFacts &Into, const RemoteFacts &From) {
  Into.insert(Into.end(), From.begin(), From.end());
  std::sort(Into.begin(), Into.end());
  Into.erase(std::unique(Into.begin(), Into.end()), Into.end());
}

size_t sharedFolders(const std::string &A, const std::string &B) {
  size_t Shared = 0;
  for (size_t I = 0; I < A.size() && I < B.size() && A[I] == B[I]; ++I)
    if (A[I] == '/')
      ++Shared;
  return Shared;
}

ImportedSummaries importsFor(size_t Self,
                             const std::vector<const UnitSummary *> &All,
                             const std::vector<std::string> &Files) {
  ImportedSummaries Result;
  if (Self >= All.size() || !All[Self] || Files.size() != All.size())
    return Result;
  // The unit a call of Name from unit Caller resolves to.
  auto DefinerFor = [&](size_t Caller,
                        const std::string &Name) -> std::optional<size_t> {
    std::optional<size_t> Best;
    size_t BestNearness = 0;
    for (size_t Other = 0; Other < All.size(); ++Other) {
      if (Other == Caller || !All[Other] || !All[Other]->Defines.count(Name))
        continue;
      size_t Nearness = sharedFolders(Files[Caller], Files[Other]);
      if (!Best || Nearness > BestNearness) {
        Best = Other;
        BestNearness = Nearness;
      }
    }
    return Best;
  };
  for (const std::string &Name : All[Self]->AskedReturns)
    if (std::optional<size_t> Definer = DefinerFor(Self, Name))
      if (auto It = All[*Definer]->Returns.find(Name);
          It != All[*Definer]->Returns.end())
        Result.Returns[Name] = It->second;
  for (const std::string &Name : All[Self]->AskedCallers) {
    std::vector<RemoteFacts> Passed;
    bool Called = false;
    for (size_t Caller = 0; Caller < All.size(); ++Caller) {
      if (Caller == Self || !All[Caller])
        continue;
      auto It = All[Caller]->Passes.find(Name);
      if (It == All[Caller]->Passes.end() || DefinerFor(Caller, Name) != Self)
        continue;
      Called = true;
      if (Passed.size() < It->second.size())
        Passed.resize(It->second.size());
      for (size_t I = 0; I < It->second.size(); ++I)
        mergeRemoteFacts(Passed[I], It->second[I]);
    }
    if (Called)
      Result.Callers[Name] = std::move(Passed);
  }
  return Result;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {
nlohmann::json factsToJson(const RemoteFacts &Facts) {
  nlohmann::json List = nlohmann::json::array();
  for (const RemoteFact &F : Facts) {
    nlohmann::json J = {{"kind", static_cast<int>(F.Kind)},
                        {"index", F.Index},
                        {"how", static_cast<int>(F.How)},
                        {"pinned", F.Pinned},
                        {"runTimeChoice", F.RunTimeChoice}};
    if (F.Where)
      J["where"] = toJson(*F.Where);
    List.push_back(std::move(J));
  }
  return List;
}

RemoteFacts factsFromJson(const nlohmann::json &List) {
  RemoteFacts Facts;
  for (const nlohmann::json &J :
       List.get_ref<const nlohmann::json::array_t &>()) {
    RemoteFact F;
    int Kind = J.at("kind").get<int>();
    int How = J.at("how").get<int>();
    if (Kind < 0 || Kind > static_cast<int>(api::DeviceKind::Other) ||
        How < 0 || How > static_cast<int>(LastProvenance))
      throw nlohmann::json::other_error::create(501, "device fact out of range",
                                                &J);
    F.Kind = static_cast<api::DeviceKind>(Kind);
    F.How = static_cast<Provenance>(How);
    F.Index = J.at("index").get<int>();
    F.Pinned = J.at("pinned").get<bool>();
    F.RunTimeChoice = J.at("runTimeChoice").get<bool>();
    if (J.contains("where"))
      F.Where = spanFromJson(J.at("where"));
    Facts.push_back(std::move(F));
  }
  mergeRemoteFacts(Facts, {});
  return Facts;
}

nlohmann::json
passesToJson(const std::map<std::string, std::vector<RemoteFacts>> &Passes) {
  nlohmann::json J = nlohmann::json::object();
  for (const auto &[Name, Parameters] : Passes) {
    nlohmann::json List = nlohmann::json::array();
    for (const RemoteFacts &Facts : Parameters)
      List.push_back(factsToJson(Facts));
    J[Name] = std::move(List);
  }
  return J;
}

std::map<std::string, std::vector<RemoteFacts>>
passesFromJson(const nlohmann::json &J) {
  std::map<std::string, std::vector<RemoteFacts>> Passes;
  for (const auto &[Name, List] :
       J.get_ref<const nlohmann::json::object_t &>()) {
    std::vector<RemoteFacts> &Parameters = Passes[Name];
    for (const nlohmann::json &Facts :
         List.get_ref<const nlohmann::json::array_t &>())
      Parameters.push_back(factsFromJson(Facts));
  }
  return Passes;
}

nlohmann::json
returnsToJson(const std::map<std::string, ReturnSummary> &Returns) {
  nlohmann::json J = nlohmann::json::object();
  for (const auto &[Name, Returned] : Returns)
    J[Name] = {{"fromParameters", Returned.FromParameters},
               {"facts", factsToJson(Returned.Facts)}};
  return J;
}

std::map<std::string, ReturnSummary> returnsFromJson(const nlohmann::json &J) {
  std::map<std::string, ReturnSummary> Returns;
  for (const auto &[Name, Value] :
       J.get_ref<const nlohmann::json::object_t &>()) {
    ReturnSummary &Returned = Returns[Name];
    Returned.FromParameters =
        Value.at("fromParameters").get<std::set<unsigned>>();
    Returned.Facts = factsFromJson(Value.at("facts"));
  }
  return Returns;
}
} // namespace

nlohmann::json toJson(const UnitSummary &S) {
  return {{"passes", passesToJson(S.Passes)},
          {"returns", returnsToJson(S.Returns)},
          {"defines", S.Defines},
          {"askedCallers", S.AskedCallers},
          {"askedReturns", S.AskedReturns}};
}

nlohmann::json toJson(const ImportedSummaries &S) {
  return {{"callers", passesToJson(S.Callers)},
          {"returns", returnsToJson(S.Returns)}};
}

UnitSummary unitSummaryFromJson(const nlohmann::json &J) {
  UnitSummary S;
  S.Passes = passesFromJson(J.at("passes"));
  S.Returns = returnsFromJson(J.at("returns"));
  S.Defines = J.at("defines").get<std::set<std::string>>();
  S.AskedCallers = J.at("askedCallers").get<std::set<std::string>>();
  S.AskedReturns = J.at("askedReturns").get<std::set<std::string>>();
  return S;
}

ImportedSummaries importedSummariesFromJson(const nlohmann::json &J) {
  ImportedSummaries S;
  S.Callers = passesFromJson(J.at("callers"));
  S.Returns = returnsFromJson(J.at("returns"));
  return S;
}

} // namespace torchlint
