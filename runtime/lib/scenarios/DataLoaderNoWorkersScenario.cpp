//===--- DataLoaderNoWorkersScenario.cpp - Loading on the training thread -===//
//
// The claim: worker threads prepare batches while the main thread trains.
// Its size depends on what a sample costs to produce, which the code does
// not tell: the recipe's "sample_cost_us" (CPU time) and "sample_io_us"
// (waiting on storage) are used when given, an in-memory dataset costs only
// its indexing, and any other dataset is assumed to spend 250 µs of CPU
// time per sample (decoding, augmentation).
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <torch/torch.h>

#include <chrono>
#include <thread>

namespace torchlint::replay {
namespace {

constexpr int64_t BatchesPerEpoch = 16;

class CostlyDataset : public torch::data::datasets::Dataset<CostlyDataset> {
public:
  CostlyDataset(int64_t Samples, std::vector<int64_t> Shape,
                std::chrono::microseconds Cost, std::chrono::microseconds Wait)
      : Samples(Samples), Shape(std::move(Shape)), Cost(Cost), Wait(Wait) {}

  torch::data::Example<> get(size_t Index) override {
    if (Wait.count() > 0)
      std::this_thread::sleep_for(Wait);
    // Busy work rather than sleep: decoding occupies a core.
    auto Until = std::chrono::steady_clock::now() + Cost;
    while (std::chrono::steady_clock::now() < Until) {
    }
    torch::Tensor Data = torch::full(Shape, static_cast<double>(Index % 97));
    return {Data, torch::tensor(static_cast<int64_t>(Index % 10))};
  }
  torch::optional<size_t> size() const override { return Samples; }

private:
  int64_t Samples;
  std::vector<int64_t> Shape;
  std::chrono::microseconds Cost;
  std::chrono::microseconds Wait;
};

bool inMemory(const std::string &Dataset) {
  for (const char *Known : {"MNIST", "TensorDataset", "InMemory"})
    if (Dataset.find(Known) != std::string::npos)
      return true;
  return false;
}

class DataLoaderNoWorkersScenario : public Scenario {
public:
  const char *id() const override { return scenario::DataLoaderNoWorkers; }
  bool needsCuda() const override { return false; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    int64_t Batch = 32;
    if (Recipe.contains("batch_size") &&
        Recipe["batch_size"].is_number_integer())
      Batch = Recipe["batch_size"].get<int64_t>();
    else
      Ctx.assume("the batch size is not known; 32 assumed");
    int64_t Workers = 0;
    if (Recipe.contains("suggested_workers") &&
        Recipe["suggested_workers"].is_number_integer())
      Workers = Recipe["suggested_workers"].get<int64_t>();
    if (Workers < 1) {
      Workers = std::max<int64_t>(
          2, std::min<int64_t>(4, std::thread::hardware_concurrency()));
      Ctx.assume("the fix's worker count is not known; " +
                 std::to_string(Workers) + " assumed");
    }
    std::string Dataset = recipeString(Recipe, "dataset");
    std::chrono::microseconds Cost(250), Wait(0);
    bool Given = false;
    if (Recipe.contains("sample_cost_us") &&
        Recipe["sample_cost_us"].is_number()) {
      Cost = std::chrono::microseconds(Recipe["sample_cost_us"].get<int64_t>());
      Given = true;
    }
    if (Recipe.contains("sample_io_us") && Recipe["sample_io_us"].is_number()) {
      Wait = std::chrono::microseconds(Recipe["sample_io_us"].get<int64_t>());
      if (!Given)
        Cost = std::chrono::microseconds(0);
      Given = true;
    }
    if (!Given && inMemory(Dataset)) {
      Cost = std::chrono::microseconds(0);
      Ctx.assume("'" + Dataset +
                 "' holds its samples in memory; a sample "
                 "costs only its indexing");
    } else if (!Given) {
      Ctx.assume("a sample is assumed to cost 250 µs of CPU time to produce");
    }
    std::vector<int64_t> Shape{3, 64, 64};
    Ctx.assume("samples of shape [3, 64, 64] in float32 assumed");
    Ctx.assume("one timed run is an epoch of " +
               std::to_string(BatchesPerEpoch) + " batches");

    auto Variant = [&](int64_t WorkerCount) {
      auto Loader = std::shared_ptr(torch::data::make_data_loader(
          CostlyDataset(BatchesPerEpoch * Batch, Shape, Cost, Wait)
              .map(torch::data::transforms::Stack<>()),
          torch::data::DataLoaderOptions(Batch).workers(WorkerCount)));
      return [Loader]() {
        double Total = 0;
        for (auto &Example : *Loader)
          Total += Example.data.sum().item<double>();
        return torch::tensor(Total, torch::kDouble);
      };
    };
    c10::Device Cpu(c10::DeviceType::CPU);
    ScenarioOutcome Outcome =
        compareSpeed(Ctx, Cpu, Variant(0), Variant(Workers),
                     toleranceFor(c10::ScalarType::Double));
    Outcome.Measurements["workers"] = Workers;
    Outcome.Measurements["sample_cost_us"] = Cost.count();
    Outcome.Measurements["sample_io_us"] = Wait.count();
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeDataLoaderNoWorkersScenario() {
  return std::make_unique<DataLoaderNoWorkersScenario>();
}

} // namespace torchlint::replay
