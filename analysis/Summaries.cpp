#include "analysis/Summaries.h"

#include "analysis/DeviceFlow.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <functional>
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

bool sameSpans(const std::map<std::string, Span> &A,
               const std::map<std::string, Span> &B) {
  auto Key = [](const std::pair<const std::string, Span> &Entry) {
    return std::tie(Entry.first, Entry.second.File, Entry.second.Begin.Offset,
                    Entry.second.End.Offset);
  };
  return std::equal(
      A.begin(), A.end(), B.begin(), B.end(),
      [&](const auto &X, const auto &Y) { return Key(X) == Key(Y); });
}

void mergeRemoteFacts(RemoteFacts &Into, const RemoteFacts &From) {
  Into.insert(Into.end(), From.begin(), From.end());
  std::sort(Into.begin(), Into.end());
  Into.erase(std::unique(Into.begin(), Into.end()), Into.end());
}

namespace {
/// What one of several functions a call may run returns: from the
/// parameters either does, any device of theirs; an argument one fills and
/// another leaves is filled or left as passed.
void joinReturns(ReturnSummary &Into, const ReturnSummary &From) {
  Into.FromParameters.insert(From.FromParameters.begin(),
                             From.FromParameters.end());
  mergeRemoteFacts(Into.Facts, From.Facts);
  for (auto &[Position, Filled] : Into.Fills)
    if (!From.Fills.count(Position))
      Filled.KeepsGiven = true;
  for (const auto &[Position, Filled] : From.Fills) {
    auto [It, New] = Into.Fills.try_emplace(Position, Filled);
    if (New) {
      It->second.KeepsGiven = true;
      continue;
    }
    mergeRemoteFacts(It->second.Facts, Filled.Facts);
    It->second.KeepsGiven |= Filled.KeepsGiven;
  }
}
} // namespace

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
  using Key = std::pair<size_t, std::string>; // definer, function
  // What a call of Name from unit Caller may run: the definition it resolves
  // to and, for a virtual method, each override of it (in any unit, the
  // caller's own included: its call of the base does not reach them).
  // Both directions of the program's overrides, indexed once: a lookup per
  // call name must not scan every unit.
  std::map<std::string, std::vector<Key>> OverridesOf;
  std::map<Key, std::vector<std::string>> BasesOf;
  for (size_t Unit = 0; Unit < All.size(); ++Unit)
    if (All[Unit])
      for (const auto &[Base, Overrides] : All[Unit]->Overrides)
        for (const std::string &Override : Overrides) {
          OverridesOf[Base].push_back({Unit, Override});
          BasesOf[{Unit, Override}].push_back(Base);
        }
  auto TargetsOf = [&](size_t Caller, const std::string &Name) {
    std::vector<Key> Targets;
    if (std::optional<size_t> Definer = DefinerFor(Caller, Name))
      Targets.push_back({*Definer, Name});
    if (auto It = OverridesOf.find(Name); It != OverridesOf.end())
      Targets.insert(Targets.end(), It->second.begin(), It->second.end());
    return Targets;
  };
  // The names through which unit Caller calls Name of unit Definer: Name
  // itself where it resolves there, and the methods Name overrides.
  auto CalledAs = [&](size_t Caller, size_t Definer, const std::string &Name) {
    std::vector<std::string> Names;
    if (Caller != Definer && DefinerFor(Caller, Name) == Definer)
      Names.push_back(Name);
    if (auto It = BasesOf.find({Definer, Name}); It != BasesOf.end())
      Names.insert(Names.end(), It->second.begin(), It->second.end());
    return Names;
  };

  for (const std::string &Name : All[Self]->AskedReturns) {
    std::optional<ReturnSummary> Joined;
    for (const auto &[Unit, Target] : TargetsOf(Self, Name)) {
      auto It = All[Unit]->Returns.find(Target);
      if (It == All[Unit]->Returns.end())
        continue;
      if (Joined)
        joinReturns(*Joined, It->second);
      else
        Joined = It->second;
    }
    if (Joined)
      Result.Returns[Name] = std::move(*Joined);
  }
  for (const std::string &Name : All[Self]->AskedCallers) {
    std::vector<RemoteFacts> Passed;
    bool Called = false;
    for (size_t Caller = 0; Caller < All.size(); ++Caller) {
      if (!All[Caller])
        continue;
      for (const std::string &Callee : CalledAs(Caller, Self, Name)) {
        auto It = All[Caller]->Passes.find(Callee);
        if (It == All[Caller]->Passes.end())
          continue;
        Called = true;
        if (Passed.size() < It->second.size())
          Passed.resize(It->second.size());
        for (size_t I = 0; I < It->second.size(); ++I)
          mergeRemoteFacts(Passed[I], It->second[I]);
      }
    }
    if (Called)
      Result.Callers[Name] = std::move(Passed);
  }
  // Step work and per-step calls follow the units' calls into each other,
  // each call resolved from the unit that makes it.
  std::map<Key, StepWork> Work;
  std::set<Key> Visiting;
  std::function<StepWork(size_t, const std::string &)> WorkOf =
      [&](size_t Unit, const std::string &Name) {
        Key K{Unit, Name};
        if (auto It = Work.find(K); It != Work.end())
          return It->second;
        if (!Visiting.insert(K).second)
          return StepWork();
        StepWork What;
        if (auto It = All[Unit]->Work.find(Name); It != All[Unit]->Work.end())
          What = It->second;
        if (auto It = All[Unit]->CallsOut.find(Name);
            It != All[Unit]->CallsOut.end())
          for (const UnitSummary::OutCall &Call : It->second)
            for (const auto &[Callee, Target] : TargetsOf(Unit, Call.Callee))
              What.add(WorkOf(Callee, Target), Call.InLoop);
        Visiting.erase(K);
        Work[K] = What;
        return What;
      };
  for (const std::string &Name : All[Self]->AskedWork) {
    StepWork What;
    for (const auto &[Definer, Target] : TargetsOf(Self, Name))
      What.add(WorkOf(Definer, Target), /*Nested=*/false);
    if (!What.none())
      Result.Work[Name] = What;
  }

  std::map<Key, bool> PerStep;
  std::function<bool(size_t, const std::string &)> RunsPerStep =
      [&](size_t Definer, const std::string &Name) {
        Key K{Definer, Name};
        if (auto It = PerStep.find(K); It != PerStep.end())
          return It->second;
        if (!Visiting.insert(K).second)
          return false;
        bool Found = false;
        for (size_t Caller = 0; Caller < All.size() && !Found; ++Caller) {
          if (!All[Caller])
            continue;
          for (const std::string &Callee : CalledAs(Caller, Definer, Name)) {
            if (All[Caller]->CallsPerStep.count(Callee)) {
              Found = true;
              break;
            }
            for (const auto &[From, Calls] : All[Caller]->CallsOut)
              if (llvm::any_of(Calls,
                               [&](const UnitSummary::OutCall &Call) {
                                 return Call.Callee == Callee;
                               }) &&
                  RunsPerStep(Caller, From)) {
                Found = true;
                break;
              }
            if (Found)
              break;
          }
        }
        Visiting.erase(K);
        PerStep[K] = Found;
        return Found;
      };
  for (const std::string &Name : All[Self]->AskedPerStep)
    if (RunsPerStep(Self, Name))
      Result.CalledPerStep.insert(Name);

  // Recording is off in every call from other units: at the call, or in all
  // the calls of the caller in turn.
  std::map<Key, bool> GradOff;
  std::function<bool(size_t, const std::string &)> AllCallsGradOff =
      [&](size_t Definer, const std::string &Name) {
        Key K{Definer, Name};
        if (auto It = GradOff.find(K); It != GradOff.end())
          return It->second;
        if (!Visiting.insert(K).second)
          return false;
        bool Called = false, Off = true;
        for (size_t Caller = 0; Caller < All.size() && Off; ++Caller) {
          if (!All[Caller])
            continue;
          std::vector<std::string> Callees = CalledAs(Caller, Definer, Name);
          for (const auto &[From, Calls] : All[Caller]->CallsOut)
            for (const UnitSummary::OutCall &Call : Calls) {
              if (!llvm::is_contained(Callees, Call.Callee))
                continue;
              Called = true;
              using Grad = UnitSummary::OutCall::Grad;
              if (Call.Recording == Grad::On ||
                  (Call.Recording == Grad::Inherited &&
                   !AllCallsGradOff(Caller, From)))
                Off = false;
            }
        }
        Visiting.erase(K);
        return GradOff[K] = Called && Off;
      };
  for (const std::string &Name : All[Self]->AskedGrad)
    if (AllCallsGradOff(Self, Name))
      Result.GradOffInCallers.insert(Name);

  // Autocast is on at some call from other units: turned on there, or left
  // on by the caller's own callers.
  std::map<Key, std::optional<Span>> UnderAutocast;
  std::function<std::optional<Span>(size_t, const std::string &)>
      AutocastOnAtCalls =
          [&](size_t Definer, const std::string &Name) -> std::optional<Span> {
    Key K{Definer, Name};
    if (auto It = UnderAutocast.find(K); It != UnderAutocast.end())
      return It->second;
    if (!Visiting.insert(K).second)
      return std::nullopt;
    std::optional<Span> Found;
    for (size_t Caller = 0; Caller < All.size() && !Found; ++Caller) {
      if (!All[Caller])
        continue;
      for (const std::string &Callee : CalledAs(Caller, Definer, Name)) {
        if (auto It = All[Caller]->CalledUnderAutocast.find(Callee);
            It != All[Caller]->CalledUnderAutocast.end())
          Found = It->second;
        for (const auto &[From, Calls] : All[Caller]->CallsOut) {
          if (Found)
            break;
          if (llvm::any_of(Calls, [&](const UnitSummary::OutCall &Call) {
                return Call.Callee == Callee && Call.AutocastInherited;
              }))
            Found = AutocastOnAtCalls(Caller, From);
        }
        if (Found)
          break;
      }
    }
    Visiting.erase(K);
    return UnderAutocast[K] = Found;
  };
  for (const std::string &Name : All[Self]->AskedAutocast)
    if (std::optional<Span> Where = AutocastOnAtCalls(Self, Name))
      Result.AutocastOnInCallers[Name] = *Where;

  // The program: the units connected to Self through the calls they make.
  if (All[Self]->AskedTraining || All[Self]->AskedCuda ||
      All[Self]->AskedCudnnBenchmark) {
    std::vector<size_t> Group(All.size());
    for (size_t I = 0; I < All.size(); ++I)
      Group[I] = I;
    std::function<size_t(size_t)> Find = [&](size_t I) {
      return Group[I] == I ? I : Group[I] = Find(Group[I]);
    };
    std::vector<std::vector<size_t>> Callees(All.size());
    for (size_t U = 0; U < All.size(); ++U) {
      if (!All[U])
        continue;
      std::set<std::string> Named = All[U]->AskedReturns;
      Named.insert(All[U]->AskedWork.begin(), All[U]->AskedWork.end());
      for (const auto &[Name, Passed] : All[U]->Passes)
        Named.insert(Name);
      for (const auto &[From, Calls] : All[U]->CallsOut)
        for (const UnitSummary::OutCall &Call : Calls)
          Named.insert(Call.Callee);
      for (const std::string &Name : Named)
        for (const auto &[V, Target] : TargetsOf(U, Name)) {
          Group[Find(U)] = Find(V);
          Callees[U].push_back(V);
        }
    }
    bool Trains = false, UsesCuda = false, DecidesCudnnBenchmark = false;
    for (size_t U = 0; U < All.size(); ++U) {
      bool Other = U != Self && All[U] && Find(U) == Find(Self);
      Trains |= Other && All[U]->Trains;
      UsesCuda |= Other && All[U]->UsesCuda;
      DecidesCudnnBenchmark |= Other && All[U]->DecidesCudnnBenchmark;
    }
    // A process-wide setting holds for the executable whose main makes it,
    // through the units that main reaches; a repository often builds several
    // (training, inference) on shared units. Where mains reach Self, each of
    // them must reach a unit that makes it; else the connected units tell.
    if (All[Self]->AskedCudnnBenchmark) {
      bool Reached = false, EveryMainDecides = true;
      for (size_t Main = 0; Main < All.size(); ++Main) {
        if (!All[Main] || !All[Main]->Defines.count("main"))
          continue;
        std::vector<bool> Seen(All.size());
        std::vector<size_t> Work = {Main};
        Seen[Main] = true;
        bool Decides = false;
        while (!Work.empty()) {
          size_t U = Work.back();
          Work.pop_back();
          Decides |= U != Self && All[U]->DecidesCudnnBenchmark;
          for (size_t V : Callees[U])
            if (!Seen[V]) {
              Seen[V] = true;
              Work.push_back(V);
            }
        }
        if (!Seen[Self])
          continue;
        Reached = true;
        EveryMainDecides &= Decides;
      }
      if (Reached)
        DecidesCudnnBenchmark = EveryMainDecides;
    }
    if (All[Self]->AskedTraining)
      Result.OthersTrain = Trains;
    if (All[Self]->AskedCuda)
      Result.OthersUseCuda = UsesCuda;
    if (All[Self]->AskedCudnnBenchmark)
      Result.OthersDecideCudnnBenchmark = DecidesCudnnBenchmark;
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
  for (const auto &[Name, Returned] : Returns) {
    nlohmann::json Fills = nlohmann::json::array();
    for (const auto &[Position, Filled] : Returned.Fills)
      Fills.push_back({{"parameter", Position},
                       {"facts", factsToJson(Filled.Facts)},
                       {"keepsGiven", Filled.KeepsGiven}});
    J[Name] = {{"fromParameters", Returned.FromParameters},
               {"facts", factsToJson(Returned.Facts)},
               {"fills", std::move(Fills)}};
  }
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
    for (const nlohmann::json &Fill :
         Value.at("fills").get_ref<const nlohmann::json::array_t &>())
      Returned.Fills[Fill.at("parameter").get<unsigned>()] = {
          factsFromJson(Fill.at("facts")), Fill.at("keepsGiven").get<bool>()};
  }
  return Returns;
}
nlohmann::json
callsOutToJson(const std::map<std::string, std::set<UnitSummary::OutCall>> &C) {
  nlohmann::json J = nlohmann::json::object();
  for (const auto &[Name, Calls] : C) {
    nlohmann::json List = nlohmann::json::array();
    for (const UnitSummary::OutCall &Call : Calls)
      List.push_back({{"callee", Call.Callee},
                      {"inLoop", Call.InLoop},
                      {"grad", static_cast<int>(Call.Recording)},
                      {"autocastInherited", Call.AutocastInherited}});
    J[Name] = std::move(List);
  }
  return J;
}

std::map<std::string, std::set<UnitSummary::OutCall>>
callsOutFromJson(const nlohmann::json &J) {
  std::map<std::string, std::set<UnitSummary::OutCall>> C;
  for (const auto &[Name, List] :
       J.get_ref<const nlohmann::json::object_t &>()) {
    std::set<UnitSummary::OutCall> &Calls = C[Name];
    for (const nlohmann::json &Call :
         List.get_ref<const nlohmann::json::array_t &>()) {
      int Grad = Call.at("grad").get<int>();
      if (Grad < 0 || Grad > 2)
        throw nlohmann::json::other_error::create(501, "grad out of range",
                                                  &Call);
      Calls.insert({Call.at("callee").get<std::string>(),
                    Call.at("inLoop").get<bool>(),
                    static_cast<UnitSummary::OutCall::Grad>(Grad),
                    Call.at("autocastInherited").get<bool>()});
    }
  }
  return C;
}

// Each function's work as the names of what it does: "step" and "trains"
// outside its own loops, "loop" and "trains-in-loop" inside them.
constexpr std::pair<bool StepWork::*, const char *> WorkNames[] = {
    {&StepWork::Runs, "step"},
    {&StepWork::Trains, "trains"},
    {&StepWork::RunsInLoops, "loop"},
    {&StepWork::TrainsInLoops, "trains-in-loop"}};

nlohmann::json workToJson(const std::map<std::string, StepWork> &Work) {
  nlohmann::json J = nlohmann::json::object();
  for (const auto &[Name, What] : Work) {
    nlohmann::json Names = nlohmann::json::array();
    for (const auto &[Member, Word] : WorkNames)
      if (What.*Member)
        Names.push_back(Word);
    J[Name] = std::move(Names);
  }
  return J;
}

std::map<std::string, StepWork> workFromJson(const nlohmann::json &J) {
  std::map<std::string, StepWork> Work;
  for (const auto &[Name, Names] :
       J.get_ref<const nlohmann::json::object_t &>()) {
    StepWork What;
    for (const nlohmann::json &Word :
         Names.get_ref<const nlohmann::json::array_t &>()) {
      const auto *Known = llvm::find_if(WorkNames, [&](const auto &Entry) {
        return Word.get_ref<const std::string &>() == Entry.second;
      });
      if (Known == std::end(WorkNames))
        throw nlohmann::json::other_error::create(501, "unknown step work",
                                                  &Word);
      What.*(Known->first) = true;
    }
    Work[Name] = What;
  }
  return Work;
}
nlohmann::json spansToJson(const std::map<std::string, Span> &Spans) {
  nlohmann::json J = nlohmann::json::object();
  for (const auto &[Name, Where] : Spans)
    J[Name] = toJson(Where);
  return J;
}

std::map<std::string, Span> spansFromJson(const nlohmann::json &J) {
  std::map<std::string, Span> Spans;
  for (const auto &[Name, Where] :
       J.get_ref<const nlohmann::json::object_t &>())
    Spans[Name] = spanFromJson(Where);
  return Spans;
}
} // namespace

nlohmann::json toJson(const UnitSummary &S) {
  return {{"passes", passesToJson(S.Passes)},
          {"returns", returnsToJson(S.Returns)},
          {"defines", S.Defines},
          {"overrides", S.Overrides},
          {"work", workToJson(S.Work)},
          {"callsOut", callsOutToJson(S.CallsOut)},
          {"callsPerStep", S.CallsPerStep},
          {"calledUnderAutocast", spansToJson(S.CalledUnderAutocast)},
          {"askedCallers", S.AskedCallers},
          {"askedReturns", S.AskedReturns},
          {"askedWork", S.AskedWork},
          {"askedPerStep", S.AskedPerStep},
          {"askedGrad", S.AskedGrad},
          {"askedAutocast", S.AskedAutocast},
          {"trains", S.Trains},
          {"askedTraining", S.AskedTraining},
          {"usesCuda", S.UsesCuda},
          {"askedCuda", S.AskedCuda},
          {"decidesCudnnBenchmark", S.DecidesCudnnBenchmark},
          {"askedCudnnBenchmark", S.AskedCudnnBenchmark}};
}

nlohmann::json toJson(const ImportedSummaries &S) {
  return {{"callers", passesToJson(S.Callers)},
          {"returns", returnsToJson(S.Returns)},
          {"work", workToJson(S.Work)},
          {"calledPerStep", S.CalledPerStep},
          {"gradOffInCallers", S.GradOffInCallers},
          {"autocastOnInCallers", spansToJson(S.AutocastOnInCallers)},
          {"othersTrain", S.OthersTrain ? nlohmann::json(*S.OthersTrain)
                                        : nlohmann::json(nullptr)},
          {"othersUseCuda", S.OthersUseCuda ? nlohmann::json(*S.OthersUseCuda)
                                            : nlohmann::json(nullptr)},
          {"othersDecideCudnnBenchmark",
           S.OthersDecideCudnnBenchmark
               ? nlohmann::json(*S.OthersDecideCudnnBenchmark)
               : nlohmann::json(nullptr)}};
}

UnitSummary unitSummaryFromJson(const nlohmann::json &J) {
  UnitSummary S;
  S.Passes = passesFromJson(J.at("passes"));
  S.Returns = returnsFromJson(J.at("returns"));
  S.Defines = J.at("defines").get<std::set<std::string>>();
  S.Overrides =
      J.at("overrides").get<std::map<std::string, std::set<std::string>>>();
  S.Work = workFromJson(J.at("work"));
  S.CallsOut = callsOutFromJson(J.at("callsOut"));
  S.CallsPerStep = J.at("callsPerStep").get<std::set<std::string>>();
  S.CalledUnderAutocast = spansFromJson(J.at("calledUnderAutocast"));
  S.AskedCallers = J.at("askedCallers").get<std::set<std::string>>();
  S.AskedReturns = J.at("askedReturns").get<std::set<std::string>>();
  S.AskedWork = J.at("askedWork").get<std::set<std::string>>();
  S.AskedPerStep = J.at("askedPerStep").get<std::set<std::string>>();
  S.AskedGrad = J.at("askedGrad").get<std::set<std::string>>();
  S.AskedAutocast = J.at("askedAutocast").get<std::set<std::string>>();
  S.Trains = J.at("trains").get<bool>();
  S.AskedTraining = J.at("askedTraining").get<bool>();
  S.UsesCuda = J.at("usesCuda").get<bool>();
  S.AskedCuda = J.at("askedCuda").get<bool>();
  S.DecidesCudnnBenchmark = J.at("decidesCudnnBenchmark").get<bool>();
  S.AskedCudnnBenchmark = J.at("askedCudnnBenchmark").get<bool>();
  return S;
}

ImportedSummaries importedSummariesFromJson(const nlohmann::json &J) {
  ImportedSummaries S;
  S.Callers = passesFromJson(J.at("callers"));
  S.Returns = returnsFromJson(J.at("returns"));
  S.Work = workFromJson(J.at("work"));
  S.CalledPerStep = J.at("calledPerStep").get<std::set<std::string>>();
  S.GradOffInCallers = J.at("gradOffInCallers").get<std::set<std::string>>();
  S.AutocastOnInCallers = spansFromJson(J.at("autocastOnInCallers"));
  if (!J.at("othersTrain").is_null())
    S.OthersTrain = J.at("othersTrain").get<bool>();
  if (!J.at("othersUseCuda").is_null())
    S.OthersUseCuda = J.at("othersUseCuda").get<bool>();
  if (!J.at("othersDecideCudnnBenchmark").is_null())
    S.OthersDecideCudnnBenchmark =
        J.at("othersDecideCudnnBenchmark").get<bool>();
  return S;
}

} // namespace torchlint
