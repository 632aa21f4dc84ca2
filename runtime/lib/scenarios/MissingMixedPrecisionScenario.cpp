//===--- MissingMixedPrecisionScenario.cpp - fp32 on a modern GPU ---------===//
//
// The claim: matrix-heavy training in plain fp32 leaves the tensor cores
// idle. The fixed variant is bf16 autocast; TF32 matmuls, the other fix the
// rule names, are timed against fp32 as well and reported beside it.
//
//===----------------------------------------------------------------------===//

#include "Autocast.h"
#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <ATen/Context.h>

namespace torchlint::replay {
namespace {

enum class Precision { Float32, BFloat16Autocast, TensorFloat32 };

class MissingMixedPrecisionScenario : public Scenario {
public:
  const char *id() const override { return scenario::MissingMixedPrecision; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    // The program's own settings (libtorch's defaults: TF32 off for matmuls,
    // on for cuDNN convolutions) are the baseline; the replayer restores
    // them afterwards.
    bool CublasTf32 = at::globalContext().allowTF32CuBLAS();
    bool CudnnTf32 = at::globalContext().allowTF32CuDNN();
    // Two comparisons share the finding's budget.
    Ctx.Timing.BudgetSeconds /= 2;
    auto Variant = [&](Precision P) {
      return [=, T = W.trainer(Ctx.Device)]() mutable {
        bool Tf32 = P == Precision::TensorFloat32;
        at::globalContext().setAllowTF32CuBLAS(Tf32 || CublasTf32);
        at::globalContext().setAllowTF32CuDNN(Tf32 || CudnnTf32);
        if (P != Precision::BFloat16Autocast)
          return trainingStep(T.Model, *T.Optimizer, T.Input, T.Target);
        // Forward and loss under autocast, backward and step outside it.
        T.Optimizer->zero_grad();
        torch::Tensor Loss;
        {
          AutocastScope Autocast(c10::DeviceType::CUDA,
                                 c10::ScalarType::BFloat16);
          Loss = torch::mse_loss(T.Model->forward(T.Input).to(torch::kFloat),
                                 T.Target);
        }
        Loss.backward();
        T.Optimizer->step();
        return Loss.detach();
      };
    };
    ScenarioOutcome Outcome =
        compareSpeed(Ctx, Ctx.Device, Variant(Precision::Float32),
                     Variant(Precision::BFloat16Autocast),
                     toleranceFor(c10::ScalarType::BFloat16));
    ScenarioOutcome Tf32 =
        compareSpeed(Ctx, Ctx.Device, Variant(Precision::Float32),
                     Variant(Precision::TensorFloat32),
                     toleranceFor(c10::ScalarType::BFloat16));
    Outcome.Measurements["tf32"] = {
        {"ratio", Tf32.Ratio->Ratio},
        {"low", Tf32.Ratio->Low},
        {"high", Tf32.Ratio->High},
        {"verdict", verdictName(Tf32.Result)},
        {"same_result", Tf32.Measurements["same_result"]}};
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeMissingMixedPrecisionScenario() {
  return std::make_unique<MissingMixedPrecisionScenario>();
}

} // namespace torchlint::replay
