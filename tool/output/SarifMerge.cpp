#include "output/SarifMerge.h"

#include "core/Finding.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <tuple>

using nlohmann::json;

namespace torchlint {

namespace {
llvm::Error problem(const std::string &Path, const std::string &What) {
  return llvm::createStringError(std::errc::invalid_argument, "%s: %s",
                                 Path.c_str(), What.c_str());
}

/// Object[Key], or null when Object is not an object or has no such member:
/// a log from elsewhere may have any shape.
const json &member(const json &Object, const char *Key) {
  static const json Null;
  if (!Object.is_object())
    return Null;
  auto It = Object.find(Key);
  return It == Object.end() ? Null : *It;
}

const json &arrayMember(const json &Object, const char *Key) {
  static const json Empty = json::array();
  const json &Value = member(Object, Key);
  return Value.is_array() ? Value : Empty;
}

std::string textOf(const json &Value) {
  return Value.is_string() ? Value.get<std::string>() : Value.dump();
}

llvm::Expected<json> readLog(const std::string &Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return problem(Path, "cannot read: " + Buffer.getError().message());
  json Log = json::parse((*Buffer)->getBuffer().begin(),
                         (*Buffer)->getBuffer().end(), nullptr,
                         /*allow_exceptions=*/false);
  if (Log.is_discarded())
    return problem(Path, "invalid JSON");
  if (!Log.is_object() || member(Log, "version") != "2.1.0" ||
      !Log.contains("runs") || !Log["runs"].is_array() || Log["runs"].empty())
    return problem(Path, "not a SARIF 2.1.0 log");
  for (const json &Run : Log["runs"]) {
    const json *Driver = nullptr;
    if (Run.is_object() && Run.contains("tool") && Run["tool"].is_object() &&
        Run["tool"].contains("driver"))
      Driver = &Run["tool"]["driver"];
    if (!Driver || !Driver->is_object() ||
        member(*Driver, "name") != "torchlint" ||
        (Run.contains("results") && !Run["results"].is_array()))
      return problem(Path, "not a log that torchlint wrote");
  }
  return Log;
}

/// What makes two results the same finding: the rule, the file and the
/// fingerprint of the line (which counts repeated lines apart).
std::tuple<std::string, std::string, std::string> identity(const json &Result) {
  const json &Locations = arrayMember(Result, "locations");
  const json &Physical = Locations.empty()
                             ? member(json(), "")
                             : member(Locations[0], "physicalLocation");
  std::string Uri = textOf(member(member(Physical, "artifactLocation"), "uri"));
  const json &Fingerprints = member(Result, "partialFingerprints");
  std::string Fingerprint = Fingerprints.is_null()
                                ? member(Physical, "region").dump()
                                : Fingerprints.dump();
  return {textOf(member(Result, "ruleId")), Uri, Fingerprint};
}
} // namespace

llvm::Expected<json> mergeSarifLogs(const std::vector<std::string> &Paths) {
  json Merged;
  json Run;
  json Rules = json::array();
  std::map<std::string, size_t> RuleIndex;
  json Results = json::array();
  std::set<std::tuple<std::string, std::string, std::string>> Seen;
  json Invocations = json::array();
  std::string FirstPath;
  for (const std::string &Path : Paths) {
    llvm::Expected<json> Log = readLog(Path);
    if (!Log)
      return Log.takeError();
    for (json &Part : (*Log)["runs"]) {
      if (Run.is_null()) {
        Merged = {{"version", "2.1.0"}};
        if (member(*Log, "$schema").is_string())
          Merged["$schema"] = (*Log)["$schema"];
        Run = Part;
        FirstPath = Path;
      } else if (member(Part, "originalUriBaseIds") !=
                 member(Run, "originalUriBaseIds")) {
        return problem(Path, "its source root differs from " + FirstPath +
                                 "'s; run every shard with the same "
                                 "--source-root");
      }
      for (const json &Rule : arrayMember(Part["tool"]["driver"], "rules")) {
        std::string Id = textOf(member(Rule, "id"));
        if (RuleIndex.emplace(Id, Rules.size()).second)
          Rules.push_back(Rule);
      }
      for (const json &Found : arrayMember(Part, "results")) {
        if (!Found.is_object() || !Seen.insert(identity(Found)).second)
          continue;
        json Result = Found;
        std::string Id = textOf(member(Result, "ruleId"));
        if (auto It = RuleIndex.find(Id); It != RuleIndex.end())
          Result["ruleIndex"] = It->second;
        else
          Result.erase("ruleIndex");
        Results.push_back(std::move(Result));
      }
      for (const json &Invocation : arrayMember(Part, "invocations"))
        Invocations.push_back(Invocation);
    }
  }
  Run["tool"]["driver"]["rules"] = std::move(Rules);
  Run["results"] = std::move(Results);
  Run["invocations"] = std::move(Invocations);
  Merged["runs"] = json::array({std::move(Run)});
  return Merged;
}

int runMerge(int Argc, const char *const *Argv) {
  auto Fail = [](const std::string &Message) {
    llvm::errs() << "torchlint: error: " << Message << '\n';
    return 2;
  };
  std::vector<std::string> Inputs;
  std::string Output;
  std::optional<Level> FailOn;
  for (int I = 2; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    if (Arg.starts_with("--fail-on=")) {
      FailOn = parseLevel(Arg.drop_front(10).str());
      if (!FailOn)
        return Fail("invalid --fail-on level '" + Arg.drop_front(10).str() +
                    "': expected note, warning or error");
    } else if (Arg == "-o" || Arg == "--output") {
      if (I + 1 >= Argc)
        return Fail("option '-o' needs a file name");
      Output = Argv[++I];
    } else if (Arg.starts_with("--output=")) {
      Output = Arg.drop_front(9).str();
    } else if (Arg.starts_with("-") && Arg != "-") {
      return Fail("unknown option '" + Arg.str() + "' for merge");
    } else {
      Inputs.push_back(Arg.str());
    }
  }
  if (Inputs.empty())
    return Fail("merge needs at least one SARIF log");
  llvm::Expected<json> Merged = mergeSarifLogs(Inputs);
  if (!Merged)
    return Fail(llvm::toString(Merged.takeError()));
  // As the analysis's own exit status: 2 when a unit was not analyzed, 1
  // for a finding at or above --fail-on.
  int Status = 0;
  if (FailOn) {
    const json &Run = (*Merged)["runs"][0];
    for (const json &Result : arrayMember(Run, "results")) {
      std::optional<Level> Found = parseLevel(textOf(member(Result, "level")));
      if (Found && *Found >= *FailOn)
        Status = 1;
    }
    for (const json &Invocation : arrayMember(Run, "invocations"))
      if (member(Invocation, "executionSuccessful") == json(false))
        Status = 2;
  }
  std::string Text = Merged->dump(2) + "\n";
  if (Output.empty() || Output == "-") {
    llvm::outs() << Text;
    return Status;
  }
  std::error_code EC;
  llvm::raw_fd_ostream File(Output, EC);
  if (EC)
    return Fail(Output + ": cannot write: " + EC.message());
  File << Text;
  File.close();
  if (File.has_error()) {
    std::string Message = File.error().message();
    File.clear_error();
    return Fail(Output + ": cannot write: " + Message);
  }
  return Status;
}

} // namespace torchlint
