#include "driver/UnitProcess.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <csignal>
#include <thread>

namespace torchlint {

nlohmann::json toJson(const TranslationUnitResult &Result) {
  nlohmann::json J = {{"file", Result.File},
                      {"warnings", Result.Warnings},
                      {"digests", Result.Digests},
                      {"fromCache", Result.FromCache},
                      {"findings", nlohmann::json::array()}};
  if (Result.Failure)
    J["failure"] = *Result.Failure;
  if (Result.CompileError)
    J["compileError"] = *Result.CompileError;
  if (Result.Summary)
    J["summary"] = toJson(*Result.Summary);
  for (const Finding &F : Result.Findings)
    J["findings"].push_back(toJson(F));
  return J;
}

TranslationUnitResult unitResultFromJson(const nlohmann::json &J) {
  TranslationUnitResult Result;
  Result.File = J.at("file").get<std::string>();
  Result.Warnings = J.at("warnings").get<std::vector<std::string>>();
  Result.Digests = J.at("digests").get<std::map<std::string, uint64_t>>();
  Result.FromCache = J.at("fromCache").get<bool>();
  if (J.contains("failure"))
    Result.Failure = J.at("failure").get<std::string>();
  if (J.contains("compileError"))
    Result.CompileError = J.at("compileError").get<std::string>();
  if (J.contains("summary"))
    Result.Summary = unitSummaryFromJson(J.at("summary"));
  for (const nlohmann::json &F :
       J.at("findings").get_ref<const nlohmann::json::array_t &>())
    Result.Findings.push_back(findingFromJson(F));
  return Result;
}

namespace {

class TemporaryFile {
public:
  explicit TemporaryFile(llvm::StringRef Suffix) {
    llvm::sys::fs::createTemporaryFile("torchlint-unit", Suffix, Path);
  }
  ~TemporaryFile() { llvm::sys::fs::remove(Path); }
  llvm::SmallString<128> Path;
};

} // namespace

TranslationUnitResult analyzeInChild(const CompileEntry &Entry,
                                     const std::vector<std::string> &Command,
                                     unsigned TimeoutSeconds) {
  TranslationUnitResult Result;
  Result.File = Entry.File;
  TemporaryFile Out("json"), Err("txt");
  std::vector<llvm::StringRef> Args(Command.begin(), Command.end());
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""),
                                                llvm::StringRef(Out.Path),
                                                llvm::StringRef(Err.Path)};
  std::string Problem;
  bool Failed = false;
  llvm::sys::ProcessInfo Child = llvm::sys::ExecuteNoWait(
      Command.front(), Args, std::nullopt, Redirects, 0, &Problem, &Failed);
  if (Failed) {
    Result.Failure = Entry.File +
                     ": error: cannot start torchlint to "
                     "analyze it: " +
                     Problem;
    return Result;
  }
  // Polled rather than waited with a timeout: LLVM's timed wait uses a
  // process-wide alarm, which the other workers' children would share.
  auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(TimeoutSeconds);
  llvm::sys::ProcessInfo Done;
  bool TimedOut = false;
  while (true) {
    Done = llvm::sys::Wait(Child, /*SecondsToWait=*/0);
    if (Done.Pid != 0)
      break;
    if (std::chrono::steady_clock::now() >= Deadline) {
      ::kill(Child.Pid, SIGKILL);
      Done = llvm::sys::Wait(Child, std::nullopt);
      TimedOut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (TimedOut) {
    Result.Failure = Entry.File +
                     ": error: not analyzed: it took longer than "
                     "--timeout=" +
                     std::to_string(TimeoutSeconds) + " seconds";
    return Result;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Printed =
      llvm::MemoryBuffer::getFile(Out.Path);
  nlohmann::json Output =
      Printed ? nlohmann::json::parse((*Printed)->getBuffer(), nullptr,
                                      /*allow_exceptions=*/false)
              : nlohmann::json();
  if (Done.ReturnCode == 0 && Output.is_object()) {
    try {
      return unitResultFromJson(Output);
    } catch (const nlohmann::json::exception &) {
    }
  }
  Result.Failure = Entry.File +
                   ": error: torchlint crashed while analyzing this "
                   "translation unit (please report it with the file)";
  return Result;
}

} // namespace torchlint
