//===--- Scenario.h - Replaying one kind of finding -------------*- C++ -*-===//
//
// A scenario rebuilds the workload a finding's recipe describes and runs it
// as the program does and as the fix would have it. It tests the claim the
// rule makes (faster, or no crash, or the right result) and nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_SCENARIO_H
#define TORCHLINT_RUNTIME_SCENARIO_H

#include "Statistics.h"
#include "Timing.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torchlint::replay {

/// What a replay knows of where it runs, and what it assumed on the way.
struct ReplayContext {
  /// The device the user asked for (cuda:0 unless told otherwise).
  c10::Device Device = c10::Device(c10::DeviceType::CPU);
  /// Why the requested CUDA device cannot be used, or empty when it can.
  std::string CudaUnusable;
  TimingOptions Timing;
  /// torchlint-replay itself, to run a variant in a process of its own.
  std::string Executable;
  /// The program's TorchScript model, when the user names it (--model), and
  /// its input's shape (--input-shape; empty: the recipe's).
  std::string ModelFile;
  std::vector<int64_t> ModelInputShape;
  /// Filled by the scenario: every default it chose for what the recipe
  /// leaves unknown.
  std::vector<std::string> Assumptions;

  bool cudaUsable() const { return CudaUnusable.empty(); }
  void assume(std::string What) { Assumptions.push_back(std::move(What)); }
  /// For a claim that holds on any device: the requested one, else the CPU,
  /// assumed with why and with Caveat (what the CPU run leaves out).
  c10::Device deviceOrCpu(const std::string &Caveat = "") {
    if (cudaUsable())
      return Device;
    assume("run on the CPU: " + CudaUnusable +
           (Caveat.empty() ? "" : "; " + Caveat));
    return c10::Device(c10::DeviceType::CPU);
  }
};

struct ScenarioOutcome {
  Verdict Result = Verdict::NotRun;
  /// Why it was not run, or what the crash or the wrong result was.
  std::string Reason;
  std::optional<TimedSamples> Samples;
  std::optional<RatioEstimate> Ratio;
  /// Whatever else the scenario measured: tolerances, differences, memory,
  /// the fraction of gradients flushed to zero.
  nlohmann::json Measurements = nlohmann::json::object();
  /// Where it ran; a scenario whose claim holds on any device falls back
  /// to the CPU.
  std::string RanOn;

  static ScenarioOutcome notRun(std::string Reason) {
    ScenarioOutcome Outcome;
    Outcome.Reason = std::move(Reason);
    return Outcome;
  }
};

/// The first line of an error message, for reasons and reports.
inline std::string firstLine(const std::string &Text) {
  return Text.substr(0, Text.find('\n'));
}

/// A recipe's fields, where null (unknown) or a wrong type means Default.
std::string recipeString(const nlohmann::json &Recipe, const char *Key,
                         const std::string &Default = "");
int64_t recipeInt(const nlohmann::json &Recipe, const char *Key,
                  int64_t Default);
bool recipeBool(const nlohmann::json &Recipe, const char *Key, bool Default);

class Scenario {
public:
  virtual ~Scenario() = default;
  /// The recipe's "scenario" value this replays.
  virtual const char *id() const = 0;
  /// Scenarios about GPU work are not run without a usable CUDA device.
  virtual bool needsCuda() const = 0;
  virtual ScenarioOutcome replay(const nlohmann::json &Recipe,
                                 ReplayContext &Ctx) const = 0;
  /// For scenarios whose variants cannot share a process: one variant, run
  /// by the child that Isolation.h starts. Null for the others.
  virtual std::function<at::Tensor()>
  isolatedVariant(const nlohmann::json &Recipe, ReplayContext &Ctx,
                  bool Fixed) const {
    (void)Recipe;
    (void)Ctx;
    (void)Fixed;
    return nullptr;
  }
};

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_SCENARIO_H
