// torch-unregistered-submodule: a module's member that its methods use but
// that was never given to register_module, register_parameter or
// register_buffer. Module::to() moves, parameters() returns and eval()
// reaches registered members only: such a member stays on the CPU when the
// model moves, its weights are never trained, a dropout stays in training
// mode. Reported at its first use in forward(), with notes at its declaration
// and at the constructor. Also a member registered under two names and a
// name registered twice. Members in a registered Sequential or ModuleList,
// handed to a helper, assigned in forward() (state, not weights), and
// classes whose constructor this unit cannot see are not reported.
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

// The critic users report: three layers, none registered.
struct CriticImpl : torch::nn::Module {
  CriticImpl(int64_t inputs)
      : lin1(torch::nn::Linear(inputs, 64)), lin2(torch::nn::Linear(64, 64)),
        lin3(torch::nn::Linear(64, 1)) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(lin1(x)); // expect: torch-unregistered-submodule [error] "submodule 'lin1' is never registered, so to() leaves it on the CPU and parameters() gives the optimizer none of its weights"
    x = torch::relu(lin2->forward(x)); // expect: torch-unregistered-submodule
    return lin3(x); // expect: torch-unregistered-submodule
  }
  torch::nn::Linear lin1, lin2, lin3; // expect-note: "'lin1' is declared here"
};
TORCH_MODULE(Critic);

// The copy-paste: batch_norm1 registered twice, batch_norm2 never.
struct ConvBlockImpl : torch::nn::Module {
  ConvBlockImpl() { // expect-note: "'ConvBlockImpl' is set up here without registering 'batch_norm2'"
    conv1 = register_module("conv1", torch::nn::Conv2d(3, 8, 3));
    batch_norm1 = register_module("batch_norm1", torch::nn::BatchNorm2d(8)); // expect-note: "first registered here, as"
    conv2 = register_module("conv2", torch::nn::Conv2d(8, 8, 3));
    batch_norm2 = torch::nn::BatchNorm2d(8);
    register_module("batch_norm2", batch_norm1); // expect: torch-unregistered-submodule [error] "so parameters() lists its weights twice and each optimizer step updates them twice"
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(batch_norm1(conv1(x)));
    return torch::relu(batch_norm2(conv2(x))); // expect: torch-unregistered-submodule // expect-note: "once "batch_norm2" no longer holds 'batch_norm1'"
  }
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d batch_norm1{nullptr}, batch_norm2{nullptr};
};
TORCH_MODULE(ConvBlock);

// One name for two layers: the second registration throws.
struct TwoHeadsImpl : torch::nn::Module {
  TwoHeadsImpl() {
    policy = register_module("head", torch::nn::Linear(16, 4)); // expect-note: "first registered here"
    value = register_module("head", torch::nn::Linear(16, 1)); // expect: torch-unregistered-submodule [error] "is registered a second time, so construction throws"
  }
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor x) {
    return {policy(x), value(x)};
  }
  torch::nn::Linear policy{nullptr}, value{nullptr};
};
TORCH_MODULE(TwoHeads);

// A weight made by hand and a normalisation kept as a plain tensor.
struct ScaledLinearImpl : torch::nn::Module {
  explicit ScaledLinearImpl(int64_t features) {
    weight = torch::randn({features, features}).requires_grad_();
    mean = torch::zeros({features});
  }
  torch::Tensor forward(torch::Tensor x) {
    x = x - mean; // expect: torch-unregistered-submodule [error] "tensor member 'mean' is never registered, so to() leaves it on the CPU"
    return torch::matmul(x, weight); // expect: torch-unregistered-submodule [error] "tensor member 'weight' is never registered, so to() leaves it on the CPU and parameters() gives the optimizer nothing to train"
  }
  torch::Tensor weight, mean;
};
TORCH_MODULE(ScaledLinear);

// A dropout left out: eval() never reaches it.
struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl()
      : fc(register_module("fc", torch::nn::Linear(128, 10))),
        drop(torch::nn::DropoutOptions(0.5)) {}
  torch::Tensor forward(torch::Tensor x) {
    return fc(drop(x)); // expect: torch-unregistered-submodule [error] "submodule 'drop' is never registered, so eval() does not reach it"
  }
  torch::nn::Linear fc{nullptr};
  torch::nn::Dropout drop;
};
TORCH_MODULE(Classifier);

// A module held through a shared_ptr, and one used only outside forward().
struct GruEncoder : torch::nn::Module {
  GruEncoder() : gru(std::make_shared<torch::nn::GRUImpl>(32, 64)) {
    proj = register_module("proj", torch::nn::Linear(64, 32));
  }
  torch::Tensor forward(torch::Tensor x) {
    return proj(std::get<0>(gru->forward(x))); // expect: torch-unregistered-submodule
  }
  torch::Tensor encodeLast(torch::Tensor x) {
    return std::get<1>(gru->forward(x));
  }
  std::shared_ptr<torch::nn::GRUImpl> gru;
  torch::nn::Linear proj{nullptr};
};

// Registered in the constructor's member initializers, in the body, in a
// Sequential, in a ModuleList, through a helper: nothing to report.
struct WellRegisteredImpl : torch::nn::Module {
  WellRegisteredImpl()
      : encoder(register_module("encoder", torch::nn::Linear(8, 16))) {
    decoder = register_module("decoder", torch::nn::Linear(16, 8));
    hidden1 = torch::nn::Linear(16, 16);
    hidden2 = torch::nn::Linear(16, 16);
    body = register_module("body", torch::nn::Sequential(hidden1, torch::nn::ReLU(),
                                                         hidden2));
    for (int i = 0; i < 3; ++i) {
      torch::nn::Linear layer(16, 16);
      layers->push_back(layer);
    }
    register_module("layers", layers);
    scale = register_parameter("scale", torch::ones({1}));
    offset = torch::zeros({8});
    register_buffer("offset", offset);
    extra = torch::nn::Linear(8, 8);
    adopt(extra);
  }
  void adopt(torch::nn::Linear layer) { register_module("extra", layer); }
  torch::Tensor forward(torch::Tensor x) {
    x = encoder(x) * scale;
    x = body->forward(x);
    for (const auto &layer : *layers)
      x = layer->as<torch::nn::Linear>()->forward(x);
    x = hidden1(x) + hidden2(x);
    return decoder(x) + offset + extra(decoder(x));
  }
  torch::nn::Linear encoder{nullptr}, decoder{nullptr}, hidden1{nullptr},
      hidden2{nullptr}, extra{nullptr};
  torch::nn::Sequential body{nullptr};
  torch::nn::ModuleList layers;
  torch::Tensor scale, offset;
};
TORCH_MODULE(WellRegistered);

// State, not weights: tensors assigned in forward(), a tensor never set, a
// layer never used, activations without parameters, a reference to another
// module, a module registered in its in-class initializer.
struct RecurrentStateImpl : torch::nn::Module {
  RecurrentStateImpl() {
    cell = register_module("cell", torch::nn::LSTMCell(8, 8));
    spare = torch::nn::Linear(8, 8);
  }
  torch::Tensor forward(torch::Tensor x) {
    if (!hidden.defined()) {
      hidden = torch::zeros({x.size(0), 8});
      memory = torch::zeros({x.size(0), 8});
    }
    std::tie(hidden, memory) = cell(x, std::make_tuple(hidden, memory));
    last = hidden;
    return relu(hidden) + (mask.defined() ? mask : torch::zeros({1}));
  }
  torch::nn::LSTMCell cell{nullptr};
  torch::nn::Linear spare{nullptr};
  torch::nn::ReLU relu;
  torch::Tensor hidden, memory, last, mask;
  torch::nn::Linear head{register_module("head", torch::nn::Linear(8, 2))};
};
TORCH_MODULE(RecurrentState);

// A Cloneable module registers in reset(), which its constructor calls.
struct ResidualImpl : torch::nn::Cloneable<ResidualImpl> {
  explicit ResidualImpl(int64_t width) : width(width) { reset(); }
  void reset() override {
    inner = register_module("inner", torch::nn::Linear(width, width));
    gate = register_parameter("gate", torch::zeros({1}));
  }
  torch::Tensor forward(torch::Tensor x) { return x + gate * inner(x); }
  int64_t width;
  torch::nn::Linear inner{nullptr};
  torch::Tensor gate;
};
TORCH_MODULE(Residual);

// Defined in another unit: its constructor may register what it uses.
struct Elsewhere : torch::nn::Module {
  Elsewhere();
  torch::Tensor forward(torch::Tensor x) { return hidden(x); }
  torch::nn::Linear hidden{nullptr};
};

// Two constructors that each register the same name once: no duplicate.
struct EitherWayImpl : torch::nn::Module {
  EitherWayImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  explicit EitherWayImpl(int64_t n) {
    if (n > 4)
      fc = register_module("fc", torch::nn::Linear(n, 4));
    else
      fc = register_module("fc", torch::nn::Linear(4, 4));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(EitherWay);

int main() {
  torch::NoGradGuard no_grad;
  torch::Device device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  Critic critic(4);
  critic->to(device);
  ConvBlock block;
  ScaledLinear scaled(8);
  Classifier classifier;
  GruEncoder encoder;
  WellRegistered well;
  RecurrentState state;
  Residual residual(8);
  EitherWay either(8);
  torch::optim::SGD optimizer(critic->parameters(), 0.1);
  torch::Tensor value = critic->forward(torch::randn({2, 4}, device));
  std::cout << value << block->forward(torch::randn({1, 3, 16, 16}))
            << scaled->forward(torch::randn({2, 8}))
            << classifier->forward(torch::randn({2, 128}))
            << encoder.forward(torch::randn({5, 2, 32}))
            << encoder.encodeLast(torch::randn({5, 2, 32}))
            << well->forward(torch::randn({2, 8}))
            << state->forward(torch::randn({2, 8}))
            << residual->forward(torch::randn({2, 8}))
            << either->forward(torch::randn({2, 4})) << '\n';
  TwoHeads heads;
  std::cout << heads->forward(torch::randn({2, 16})).first << '\n';
}
