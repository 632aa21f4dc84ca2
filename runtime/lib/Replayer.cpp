#include "Replayer.h"

#include "Doctor.h"
#include "GlobalState.h"
#include "ScenarioRegistry.h"

#include <c10/util/Exception.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace torchlint::replay {

using nlohmann::ordered_json;

Environment probeEnvironment(const std::string &DeviceSpec) {
  Environment Env;
  try {
    Env.Device = c10::Device(DeviceSpec);
  } catch (const c10::Error &) {
    throw std::invalid_argument("'" + DeviceSpec +
                                "' is not a device (try cuda:0 or cpu)");
  }
  Env.TorchVersion = TORCH_VERSION;
#ifdef TORCHLINT_TORCH_HAS_CUDA
  Env.BuiltWithCuda = true;
#endif
  // The doctor's probe asks libtorch and the driver without risking a
  // throw from a missing CUDA backend, and runs no device operation here.
  doctor::SystemFacts Facts =
      doctor::gatherFacts([] { return doctor::DeviceOpResult(); });
  if (Facts.BuiltForCuda)
    Env.CudaVersion = Facts.BuiltForCuda->str();
  if (!Env.Device.is_cuda()) {
    Env.CudaUnusable = "the replay was asked to run on " + Env.Device.str();
    Env.DeviceName = Env.Device.str();
    return Env;
  }
  int Index = Env.Device.has_index() ? Env.Device.index() : 0;
  if (!torch::cuda::is_available()) {
    for (const doctor::Check &C : doctor::diagnose(Facts))
      if (C.State == doctor::Status::Fail) {
        Env.CudaUnusable = C.Detail;
        break;
      }
    if (Env.CudaUnusable.empty())
      Env.CudaUnusable = "libtorch sees no CUDA device";
  } else if (static_cast<size_t>(Index) >= torch::cuda::device_count()) {
    Env.CudaUnusable = Env.Device.str() + " does not exist: " +
                       std::to_string(torch::cuda::device_count()) +
                       " device(s) are visible";
  }
  Env.DeviceName = static_cast<size_t>(Index) < Facts.Devices.size()
                       ? Facts.Devices[Index].Name
                       : Env.Device.str();
  return Env;
}

namespace {

bool outOfMemory(const std::string &Message) {
  for (const char *Sign :
       {"out of memory", "Out of memory", "can't allocate memory"})
    if (Message.find(Sign) != std::string::npos)
      return true;
  return false;
}

} // namespace

ReplayRow replayItem(const ReplayItem &Item, const Environment &Env,
                     const ReplayOptions &Options) {
  ReplayRow Row;
  Row.Item = Item;
  if (Item.Recipe.contains("scenario") && Item.Recipe["scenario"].is_string())
    Row.Scenario = Item.Recipe["scenario"].get<std::string>();
  auto Begin = std::chrono::steady_clock::now();
  const Scenario *S = findScenario(Row.Scenario);
  // A log written before an id was renamed is annotated with the current id,
  // so that one scenario is never reported under two names.
  if (S)
    Row.Scenario = S->id();
  ReplayContext Ctx;
  Ctx.Device = Env.Device;
  Ctx.CudaUnusable = Env.CudaUnusable;
  // Fewer than five runs give no usable interval.
  Ctx.Timing.MinRepeats = 5;
  Ctx.Timing.MaxRepeats = std::max(5u, Options.Repeats);
  Ctx.Timing.BudgetSeconds = Options.BudgetSeconds;
  Ctx.Executable = Options.Executable;
  Ctx.ModelFile = Options.ModelFile;
  Ctx.ModelInputShape = Options.ModelInputShape;
  if (!S) {
    Row.Outcome = ScenarioOutcome::notRun(
        Row.Scenario.empty() ? "the recipe names no scenario"
                             : "no scenario replays '" + Row.Scenario + "'");
  } else if (S->needsCuda() && !Ctx.cudaUsable()) {
    Row.Outcome =
        ScenarioOutcome::notRun("needs a CUDA device: " + Ctx.CudaUnusable);
  } else {
    // The recipe as JSON the scenarios read; key order does not matter here.
    nlohmann::json Recipe = nlohmann::json::parse(Item.Recipe.dump());
    try {
      GlobalStateGuard KeepState;
      Row.Outcome = S->replay(Recipe, Ctx);
    } catch (const std::exception &E) {
      std::string Message = firstLine(E.what());
      Row.Outcome = ScenarioOutcome::notRun(
          outOfMemory(Message) ? "out of memory: " + Message
                               : "the replay could not run: " + Message);
    }
  }
  Row.Assumptions = std::move(Ctx.Assumptions);
  Row.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Begin)
          .count();
  return Row;
}

ordered_json replayProperties(const ReplayRow &Row, const Environment &Env) {
  const ScenarioOutcome &O = Row.Outcome;
  ordered_json Replay;
  Replay["verdict"] = verdictName(O.Result);
  Replay["scenario"] = Row.Scenario;
  if (!O.Reason.empty())
    Replay["reason"] = O.Reason;
  if (O.Samples && O.Ratio) {
    Replay["medianSeconds"] = {{"original", median(O.Samples->Original)},
                               {"fixed", median(O.Samples->Fixed)}};
    Replay["speedUp"] = {{"ratio", O.Ratio->Ratio},
                         {"confidence", 0.95},
                         {"low", O.Ratio->Low},
                         {"high", O.Ratio->High}};
    Replay["repeats"] = O.Samples->Original.size();
    Replay["stepsPerBatch"] = {{"original", O.Samples->OriginalSteps},
                               {"fixed", O.Samples->FixedSteps}};
    Replay["clock"] = O.Samples->Clock;
  }
  if (!O.Measurements.empty())
    Replay["measurements"] = ordered_json::parse(O.Measurements.dump());
  bool OnRequested = O.RanOn.empty() || O.RanOn == Env.Device.str();
  Replay["environment"] = {
      {"device", OnRequested ? Env.Device.str() : O.RanOn},
      {"deviceName", OnRequested ? Env.DeviceName : O.RanOn},
      {"libtorch", Env.TorchVersion},
      {"cuda", Env.CudaVersion.empty() ? ordered_json(nullptr)
                                       : ordered_json(Env.CudaVersion)}};
  Replay["assumptions"] = Row.Assumptions;
  return Replay;
}

namespace {

std::string fixed2(double Value) {
  std::ostringstream Out;
  Out << std::fixed << std::setprecision(2) << Value;
  return Out.str();
}

std::string ratioText(const ScenarioOutcome &O) {
  if (!O.Ratio)
    return "";
  return fixed2(O.Ratio->Ratio) + "x [" + fixed2(O.Ratio->Low) + ", " +
         fixed2(O.Ratio->High) + "]";
}

} // namespace

std::string replaySummary(const ReplayRow &Row, const Environment &Env) {
  const ScenarioOutcome &O = Row.Outcome;
  std::string Text = "[replay: " + std::string(verdictName(O.Result));
  if (O.Ratio)
    Text += ", speed-up " + ratioText(O) + " (95% CI) on " +
            (O.RanOn.empty() || O.RanOn == Env.Device.str() ? Env.DeviceName
                                                            : O.RanOn);
  else if (!O.Reason.empty())
    Text += ", " + O.Reason;
  return Text + "]";
}

void printTable(const std::vector<ReplayRow> &Rows, std::ostream &Out) {
  // The scenario column fits the longest id, fp16-without-loss-scaling.
  Out << std::left << std::setw(34) << "finding" << std::setw(27) << "scenario"
      << std::setw(24) << "verdict"
      << "speed-up [95% CI] / reason\n";
  for (const ReplayRow &Row : Rows) {
    std::string Where = Row.Item.Location;
    if (Where.size() > 33)
      Where = "..." + Where.substr(Where.size() - 30);
    std::string Detail =
        Row.Outcome.Ratio ? ratioText(Row.Outcome) : Row.Outcome.Reason;
    Out << std::setw(34) << Where << std::setw(27) << Row.Scenario
        << std::setw(24) << verdictName(Row.Outcome.Result) << Detail << "\n";
  }
}

} // namespace torchlint::replay
