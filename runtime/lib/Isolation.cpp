#include "Isolation.h"

#include "ScenarioRegistry.h"
#include "Workload.h"

#include <torch/torch.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace torchlint::replay {

namespace {

std::string quoted(const std::string &Text) {
  std::string Out = "'";
  for (char C : Text)
    Out += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Out + "'";
}

} // namespace

ChildSamples timeInChild(const ReplayContext &Ctx, const std::string &Scenario,
                         bool Fixed, const nlohmann::json &Recipe) {
  if (Ctx.Executable.empty())
    throw std::runtime_error("no torchlint-replay executable to run a "
                             "variant in a process of its own");
  char RecipeFile[] = "/tmp/torchlint-recipe-XXXXXX";
  int Descriptor = ::mkstemp(RecipeFile);
  if (Descriptor < 0)
    throw std::runtime_error("cannot create a temporary recipe file");
  ::close(Descriptor);
  {
    std::ofstream Out(RecipeFile);
    Out << Recipe.dump();
  }
  std::string Command =
      quoted(Ctx.Executable) + " --run-variant " + quoted(Scenario) + " " +
      (Fixed ? "fixed " : "original ") + quoted(RecipeFile) + " " +
      quoted(Ctx.Device.str()) + " " + std::to_string(Ctx.Timing.MinRepeats) +
      " " + std::to_string(Ctx.Timing.MaxRepeats) + " " +
      std::to_string(Ctx.Timing.BudgetSeconds) + " 2>&1";
  std::string Output;
  if (FILE *Pipe = ::popen(Command.c_str(), "r")) {
    std::array<char, 4096> Buffer;
    while (size_t N = std::fread(Buffer.data(), 1, Buffer.size(), Pipe))
      Output.append(Buffer.data(), N);
    ::pclose(Pipe);
  }
  std::remove(RecipeFile);
  // The answer is the last line; libtorch may have warned before it.
  std::string Last = Output;
  while (!Last.empty() && Last.back() == '\n')
    Last.pop_back();
  Last = Last.substr(
      Last.rfind('\n') == std::string::npos ? 0 : Last.rfind('\n') + 1);
  nlohmann::json Answer = nlohmann::json::parse(Last, nullptr, false);
  if (!Answer.is_object() || !Answer.contains("seconds")) {
    std::string Error = Answer.is_object() && Answer.contains("error")
                            ? Answer["error"].get<std::string>()
                            : firstLine(Output);
    throw std::runtime_error(std::string("the ") +
                             (Fixed ? "fixed" : "original") +
                             " variant's process failed: " + Error);
  }
  ChildSamples Samples;
  Samples.Seconds = Answer["seconds"].get<std::vector<double>>();
  Samples.Clock = Answer["clock"].get<std::string>();
  Samples.Steps = Answer.value("steps", 1u);
  Samples.Result =
      torch::tensor(Answer["result"].get<std::vector<double>>(), torch::kDouble)
          .view(Answer["shape"].get<std::vector<int64_t>>());
  return Samples;
}

ScenarioOutcome compareSpeedInChildren(const ReplayContext &Ctx,
                                       const std::string &Scenario,
                                       const nlohmann::json &Recipe) {
  ReplayContext Child = Ctx;
  Child.Timing.BudgetSeconds /= 2;
  ChildSamples Original = timeInChild(Child, Scenario, false, Recipe);
  ChildSamples Fixed = timeInChild(Child, Scenario, true, Recipe);
  return judgeSpeed(TimedSamples{Original.Seconds, Fixed.Seconds,
                                 Original.Clock, Original.Steps, Fixed.Steps},
                    Original.Result, Fixed.Result,
                    toleranceFor(c10::ScalarType::Float), Ctx.Device);
}

int runVariantHere(const std::vector<std::string> &Arguments) {
  nlohmann::json Answer;
  try {
    if (Arguments.size() != 7)
      throw std::runtime_error("--run-variant takes 7 arguments");
    const Scenario *S = findScenario(Arguments[0]);
    if (!S)
      throw std::runtime_error("no scenario '" + Arguments[0] + "'");
    std::ifstream In(Arguments[2]);
    nlohmann::json Recipe = nlohmann::json::parse(In);
    ReplayContext Ctx;
    Ctx.Device = c10::Device(Arguments[3]);
    Ctx.Timing.MinRepeats = std::stoul(Arguments[4]);
    Ctx.Timing.MaxRepeats = std::stoul(Arguments[5]);
    Ctx.Timing.BudgetSeconds = std::stod(Arguments[6]);
    std::function<torch::Tensor()> Variant =
        S->isolatedVariant(Recipe, Ctx, Arguments[1] == "fixed");
    if (!Variant)
      throw std::runtime_error("'" + Arguments[0] +
                               "' does not run its variants apart");
    torch::Tensor Result =
        Variant().detach().to(torch::kCPU).to(torch::kDouble);
    Answer["shape"] = Result.sizes().vec();
    Result = Result.contiguous();
    Answer["result"] = std::vector<double>(
        Result.data_ptr<double>(), Result.data_ptr<double>() + Result.numel());
    unsigned Steps = 1;
    Answer["seconds"] = timeRepeatedly(
        Ctx.Device, [&] { Variant(); }, Ctx.Timing, &Steps);
    Answer["steps"] = Steps;
    Answer["clock"] = clockFor(Ctx.Device);
  } catch (const std::exception &E) {
    Answer = {{"error", firstLine(E.what())}};
  }
  std::cout << "\n" << Answer.dump() << std::endl;
  return Answer.contains("error") ? 1 : 0;
}

} // namespace torchlint::replay
