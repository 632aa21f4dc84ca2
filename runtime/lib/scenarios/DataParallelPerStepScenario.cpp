//===--- DataParallelPerStepScenario.cpp - Two GPUs against one -----------===//
//
// The claim: data_parallel replicates the whole model on every call, so a
// training step spread over two GPUs with it can be slower than the same
// step on one. Where two usable GPUs exist and libtorch was built with CUDA
// (data_parallel.h needs it), the recipe's training step is timed with
// data_parallel over cuda:0 and cuda:1 (the original) and on cuda:0 alone
// (the fix's baseline); `confirmed` means one GPU was faster. Elsewhere it
// is not run, and says why.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <torch/cuda.h>

// A CPU-only libtorch lacks the header its CUDA build generates, which
// data_parallel.h reaches through c10/cuda.
#if __has_include(<c10/cuda/impl/cuda_cmake_macros.h>)
#include <torch/nn/parallel/data_parallel.h>
#define TORCHLINT_REPLAY_HAS_DATA_PARALLEL 1
#endif

namespace torchlint::replay {
namespace {

constexpr int StepsPerRun = 5;

class DataParallelPerStepScenario : public Scenario {
public:
  const char *id() const override { return scenario::DataParallelPerStep; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    if (!Ctx.cudaUsable())
      return ScenarioOutcome::notRun(
          "data_parallel replicates only across two or more GPUs: " +
          Ctx.CudaUnusable);
    size_t Gpus = torch::cuda::device_count();
    if (Gpus < 2)
      return ScenarioOutcome::notRun(
          "data_parallel replicates only across two or more GPUs, and this "
          "machine has " +
          std::to_string(Gpus) + ": one against two cannot be measured");
#ifdef TORCHLINT_REPLAY_HAS_DATA_PARALLEL
    c10::Device First(c10::DeviceType::CUDA, 0);
    std::vector<c10::Device> Two = {First,
                                    c10::Device(c10::DeviceType::CUDA, 1)};
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    Ctx.assume(std::to_string(StepsPerRun) +
               " training steps per timed run: data_parallel over cuda:0 and "
               "cuda:1 (the original) against the model on cuda:0 alone");
    auto Variant = [&](bool Parallel) {
      return [=, T = W.trainer(First)]() mutable {
        torch::Tensor Total = torch::zeros({}, T.Input.options());
        for (int Step = 0; Step < StepsPerRun; ++Step) {
          T.Optimizer->zero_grad();
          torch::Tensor Output = Parallel ? torch::nn::parallel::data_parallel(
                                                T.Model, T.Input, Two, First)
                                          : T.Model->forward(T.Input);
          torch::Tensor Loss =
              torch::mse_loss(Output.to(T.Target.scalar_type()), T.Target);
          Loss.backward();
          T.Optimizer->step();
          Total += Loss.detach();
        }
        return Total;
      };
    };
    return compareSpeed(Ctx, First, Variant(true), Variant(false),
                        toleranceFor(c10::ScalarType::Float));
#else
    (void)Recipe;
    return ScenarioOutcome::notRun(
        "this torchlint-replay was built against a libtorch without CUDA, "
        "whose headers lack data_parallel's");
#endif
  }
};

} // namespace

std::unique_ptr<Scenario> makeDataParallelPerStepScenario() {
  return std::make_unique<DataParallelPerStepScenario>();
}

} // namespace torchlint::replay
