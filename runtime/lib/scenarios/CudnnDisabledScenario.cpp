//===--- CudnnDisabledScenario.cpp - cuDNN switched off -------------------===//
//
// The claim: the layers cuDNN runs (convolutions, recurrent layers, batch
// normalization) are faster with cuDNN on than with libtorch's own kernels.
// Both variants run a training step of the same module, in one process:
// cuDNN is switched per call, and TF32 is off in both so that the two
// compute the same thing.
//
//===----------------------------------------------------------------------===//

#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <ATen/Context.h>
#include <torch/torch.h>

namespace torchlint::replay {
namespace {

/// A small module of the layer kind the finding names (a convolution or a
/// batch norm), and its input.
std::pair<torch::nn::Sequential, torch::Tensor>
representative(const std::string &Layer, const c10::Device &Device) {
  torch::nn::Sequential Model;
  torch::Tensor Input;
  if (Layer.rfind("BatchNorm", 0) == 0 || Layer == "batch_norm") {
    Model->push_back(torch::nn::BatchNorm2d(64));
    Model->push_back(torch::nn::ReLU());
    Model->push_back(torch::nn::BatchNorm2d(64));
    Input = torch::randn({32, 64, 56, 56}, Device);
  } else {
    Model->push_back(
        torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 64, 3).padding(1)));
    Model->push_back(torch::nn::ReLU());
    Model->push_back(
        torch::nn::Conv2d(torch::nn::Conv2dOptions(64, 64, 3).padding(1)));
    Input = torch::randn({32, 3, 64, 64}, Device);
  }
  Model->to(Device);
  return {Model, Input};
}

bool recurrent(const std::string &Layer) {
  return Layer == "LSTM" || Layer == "GRU" || Layer == "RNN" ||
         Layer == "lstm" || Layer == "gru" || Layer.rfind("rnn", 0) == 0;
}

class CudnnDisabledScenario : public Scenario {
public:
  const char *id() const override { return scenario::CudnnDisabled; }
  bool needsCuda() const override { return true; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    const std::string Layer = recipeString(Recipe, "layer", "Conv2d");
    Ctx.assume("TF32 is off in both variants, so that cuDNN's and libtorch's "
               "kernels compute the same thing");
    at::globalContext().setAllowTF32CuDNN(false);
    auto WithCudnn = [](bool On, auto Work) {
      return [On, Work]() mutable {
        at::globalContext().setUserEnabledCuDNN(On);
        return Work();
      };
    };
    if (recurrent(Layer)) {
      Ctx.assume("one forward and backward pass of a 2-layer LSTM (256 "
                 "features, 32 steps, batch 16) stands in for the '" +
                 Layer + "' work");
      torch::nn::LSTM Lstm(torch::nn::LSTMOptions(256, 256).num_layers(2));
      Lstm->to(Ctx.Device);
      torch::Tensor Input = torch::randn({32, 16, 256}, Ctx.Device);
      auto Step = [Lstm, Input]() mutable {
        Lstm->zero_grad();
        torch::Tensor Out = std::get<0>(Lstm->forward(Input));
        Out.sum().backward();
        return Out.detach();
      };
      return compareSpeed(Ctx, Ctx.Device, WithCudnn(false, Step),
                          WithCudnn(true, Step),
                          toleranceFor(c10::ScalarType::Float));
    }
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    torch::nn::Sequential Model;
    torch::Tensor Input;
    if (W.layout().HasConvolution && Layer.rfind("Conv", 0) == 0) {
      Model = W.model(Ctx.Device);
      Input = W.input(Ctx.Device);
    } else {
      Ctx.assume("a small stack of '" + Layer +
                 "' layers stands in for the program's module");
      std::tie(Model, Input) = representative(Layer, Ctx.Device);
    }
    auto Step = [Model, Input]() mutable {
      Model->zero_grad();
      torch::Tensor Out = Model->forward(Input);
      Out.sum().backward();
      return Out.detach();
    };
    return compareSpeed(Ctx, Ctx.Device, WithCudnn(false, Step),
                        WithCudnn(true, Step),
                        toleranceFor(c10::ScalarType::Float));
  }
};

} // namespace

std::unique_ptr<Scenario> makeCudnnDisabledScenario() {
  return std::make_unique<CudnnDisabledScenario>();
}

} // namespace torchlint::replay
