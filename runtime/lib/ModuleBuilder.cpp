#include "ModuleBuilder.h"

#include <functional>
#include <sstream>
#include <stdexcept>

namespace torchlint::replay {

using nlohmann::json;

std::vector<int64_t> knownShape(const json &TensorRecipe) {
  if (!TensorRecipe.is_object() || !TensorRecipe.contains("shape") ||
      !TensorRecipe["shape"].is_array() || TensorRecipe["shape"].empty())
    return {};
  std::vector<int64_t> Shape;
  bool Complete = true;
  for (const json &Dim : TensorRecipe["shape"]) {
    if (Dim.is_null()) {
      Complete = false;
      continue;
    }
    // A recipe written by hand, or damaged: refused, not guessed around.
    if (!Dim.is_number_integer() || Dim.get<int64_t>() <= 0)
      throw std::invalid_argument("the recipe's shape " +
                                  TensorRecipe["shape"].dump() +
                                  " is not a tensor shape");
    Shape.push_back(Dim.get<int64_t>());
  }
  if (!Complete)
    return {};
  double Elements = 1;
  for (int64_t Dim : Shape)
    Elements *= static_cast<double>(Dim);
  if (Elements > MaxReplayElements)
    throw std::invalid_argument(
        "the recipe's shape " + TensorRecipe["shape"].dump() + " holds " +
        std::to_string(static_cast<long long>(Elements / 1e9)) +
        " billion elements; the replay allocates at most " +
        std::to_string(static_cast<long long>(MaxReplayElements / 1e9)) +
        " billion per tensor");
  return Shape;
}

c10::ScalarType scalarTypeNamed(const json &Name, c10::ScalarType Default) {
  if (!Name.is_string())
    return Default;
  static const std::pair<const char *, c10::ScalarType> Names[] = {
      {"float32", c10::ScalarType::Float},
      {"float64", c10::ScalarType::Double},
      {"float16", c10::ScalarType::Half},
      {"bfloat16", c10::ScalarType::BFloat16},
      {"int64", c10::ScalarType::Long},
      {"int32", c10::ScalarType::Int},
      {"uint8", c10::ScalarType::Byte},
      {"int8", c10::ScalarType::Char},
      {"int16", c10::ScalarType::Short},
      {"bool", c10::ScalarType::Bool}};
  for (const auto &[Spelling, Type] : Names)
    if (Name.get<std::string>() == Spelling)
      return Type;
  return Default;
}

namespace {

std::string shapeText(c10::IntArrayRef Shape) {
  std::ostringstream Out;
  Out << Shape;
  return Out.str();
}

/// What a layer needs of its input, so that an adapter can provide it.
struct InputNeed {
  enum Kind { Anything, Features, Channels, Sequence, Indices } What = Anything;
  int64_t Size = 0;         // features or channels
  int64_t SpatialDims = 0;  // for Channels
  bool AcceptsFlat = false; // BatchNorm1d takes [B, C] as well
};

/// One layer of the recipe, flattened out of Sequentials and user modules.
struct LayerSpec {
  std::string Type;
  json Args = json::array();
  json Options = json::object();
  std::string Name; // the registered name, when known
};

void flatten(const json &Recipe, std::vector<LayerSpec> &Layers,
             std::vector<std::string> &Assumptions) {
  if (!Recipe.is_object() || !Recipe.contains("type") ||
      Recipe["type"].is_null())
    return;
  std::string Type = Recipe["type"].get<std::string>();
  if (Recipe.contains("submodules") && Recipe["submodules"].is_array()) {
    if (Type != "Sequential" && Type != "ModuleList")
      Assumptions.push_back("the forward() of '" + Type +
                            "' is not known; its submodules are applied in "
                            "the order they are registered");
    for (const json &Child : Recipe["submodules"])
      flatten(Child, Layers, Assumptions);
    return;
  }
  LayerSpec Spec;
  Spec.Type = Type;
  if (Recipe.contains("args") && Recipe["args"].is_array())
    Spec.Args = Recipe["args"];
  if (Recipe.contains("options") && Recipe["options"].is_object())
    Spec.Options = Recipe["options"];
  if (Recipe.contains("name") && Recipe["name"].is_string())
    Spec.Name = Recipe["name"].get<std::string>();
  Layers.push_back(std::move(Spec));
}

class Assembler {
public:
  Assembler(BuiltModel &Out, std::vector<std::string> &Assumptions)
      : Out(Out), Assumptions(Assumptions) {}

  void add(const LayerSpec &Spec);
  torch::Tensor probe() const;

  std::vector<int64_t> SampleShape;

private:
  BuiltModel &Out;
  std::vector<std::string> &Assumptions;

  std::string label(const LayerSpec &Spec) const {
    return Spec.Name.empty() ? Spec.Type : Spec.Type + " '" + Spec.Name + "'";
  }

  /// The integer argument Index, or Default with an assumption.
  int64_t intArg(const LayerSpec &Spec, size_t Index, int64_t Default,
                 const char *What) {
    if (Index < Spec.Args.size() && Spec.Args[Index].is_number_integer())
      return Spec.Args[Index].get<int64_t>();
    Assumptions.push_back("the " + std::string(What) + " of " + label(Spec) +
                          " is not a constant; " + std::to_string(Default) +
                          " assumed");
    return Default;
  }
  int64_t intOption(const LayerSpec &Spec, const char *Name, int64_t Default) {
    if (Spec.Options.contains(Name) && Spec.Options[Name].is_number_integer())
      return Spec.Options[Name].get<int64_t>();
    return Default;
  }
  bool boolOption(const LayerSpec &Spec, const char *Name, bool Default) {
    if (Spec.Options.contains(Name) && Spec.Options[Name].is_boolean())
      return Spec.Options[Name].get<bool>();
    return Default;
  }

  void adaptTo(const InputNeed &Need, const LayerSpec &Spec);
  void push(const std::string &Name, torch::nn::AnyModule Module) {
    Out.Model->push_back(std::move(Module));
    Out.Layers.push_back(Name);
  }
  template <size_t D> void addConvolution(const LayerSpec &Spec);
};

torch::Tensor Assembler::probe() const {
  std::vector<int64_t> Shape{2};
  Shape.insert(Shape.end(), SampleShape.begin(), SampleShape.end());
  torch::NoGradGuard NoGrad;
  torch::Tensor Input =
      Out.InputType == c10::ScalarType::Long
          ? torch::randint(Out.IndexBound, Shape, torch::kLong)
          : torch::randn(Shape);
  return Out.Model->size() == 0 ? Input : Out.Model->forward(Input);
}

/// Pools the flattened features of X to exactly N values per sample.
torch::Tensor poolFeatures(const torch::Tensor &X, int64_t N) {
  torch::Tensor Flat = X.flatten(1);
  if (Flat.size(1) == N)
    return Flat;
  return torch::adaptive_avg_pool1d(Flat.unsqueeze(1), N).squeeze(1);
}

void Assembler::adaptTo(const InputNeed &Need, const LayerSpec &Spec) {
  if (Need.What == InputNeed::Anything || Need.What == InputNeed::Indices)
    return;
  torch::Tensor Current = probe();
  int64_t Size = Need.Size;
  std::string Adapter;
  if (Need.What == InputNeed::Features) {
    if (Current.dim() >= 2 && Current.size(-1) == Size)
      return;
    if (Current.dim() > 2 && Current[0].numel() == Size) {
      push("Flatten", torch::nn::AnyModule(torch::nn::Flatten()));
      Adapter = "flattened";
    } else {
      push("adapter",
           torch::nn::AnyModule(torch::nn::Functional(
               [Size](torch::Tensor X) { return poolFeatures(X, Size); })));
      Adapter = "pooled to " + std::to_string(Size) + " features";
    }
  } else if (Need.What == InputNeed::Channels) {
    int64_t Rank = Need.SpatialDims + 2;
    if (Current.dim() == Rank && Current.size(1) == Size)
      return;
    if (Need.AcceptsFlat && Current.dim() == 2 && Current.size(1) == Size)
      return;
    int64_t Side = Need.SpatialDims == 1 ? 64 : Need.SpatialDims == 2 ? 16 : 8;
    std::vector<int64_t> Shape{-1, Size};
    for (int64_t I = 0; I < Need.SpatialDims; ++I)
      Shape.push_back(Side);
    int64_t Count = Size;
    for (int64_t I = 0; I < Need.SpatialDims; ++I)
      Count *= Side;
    push("adapter", torch::nn::AnyModule(
                        torch::nn::Functional([Count, Shape](torch::Tensor X) {
                          return poolFeatures(X, Count).view(Shape);
                        })));
    Adapter = "reshaped to " + shapeText(c10::IntArrayRef(Shape).slice(1)) +
              " per sample";
  } else if (Need.What == InputNeed::Sequence) {
    if (Current.dim() == 3 && Current.size(2) == Size)
      return;
    constexpr int64_t Steps = 16;
    push("adapter",
         torch::nn::AnyModule(torch::nn::Functional([Size](torch::Tensor X) {
           return poolFeatures(X, Steps * Size).view({-1, Steps, Size});
         })));
    Adapter = "reshaped to a sequence of " + std::to_string(Steps) + " steps";
  }
  Assumptions.push_back("the output of shape " +
                        shapeText(Current.sizes().slice(1)) +
                        " does not fit the input of " + label(Spec) + "; " +
                        Adapter + " in between");
}

template <size_t D> void Assembler::addConvolution(const LayerSpec &Spec) {
  torch::Tensor Current = probe();
  int64_t FitIn =
      Current.dim() == static_cast<int64_t>(D) + 2 ? Current.size(1) : 1;
  int64_t In = intArg(Spec, 0, FitIn, "input channels");
  int64_t OutChannels = intArg(Spec, 1, 64, "output channels");
  int64_t Kernel = intArg(Spec, 2, 3, "kernel size");
  adaptTo({InputNeed::Channels, In, static_cast<int64_t>(D)}, Spec);
  torch::nn::ConvOptions<D> Options(In, OutChannels,
                                    torch::ExpandingArray<D>(Kernel));
  Options.stride(torch::ExpandingArray<D>(intOption(Spec, "stride", 1)));
  Options.padding(torch::ExpandingArray<D>(intOption(Spec, "padding", 0)));
  Options.dilation(torch::ExpandingArray<D>(intOption(Spec, "dilation", 1)));
  Options.groups(intOption(Spec, "groups", 1));
  Options.bias(boolOption(Spec, "bias", true));
  if constexpr (D == 1)
    push(Spec.Type, torch::nn::AnyModule(torch::nn::Conv1d(Options)));
  else if constexpr (D == 2)
    push(Spec.Type, torch::nn::AnyModule(torch::nn::Conv2d(Options)));
  else
    push(Spec.Type, torch::nn::AnyModule(torch::nn::Conv3d(Options)));
  Out.HasConvolution = Out.HasMatrixLayers = true;
}

/// A recurrent layer returns (output, state); the model passes the output on.
template <typename Rnn> struct RecurrentOutputImpl : torch::nn::Module {
  explicit RecurrentOutputImpl(Rnn Layer)
      : Layer(register_module("layer", std::move(Layer))) {}
  torch::Tensor forward(torch::Tensor X) {
    return std::get<0>(Layer->forward(X));
  }
  Rnn Layer;
};

/// Self-attention over a [batch, time, embedding] input.
struct SelfAttentionImpl : torch::nn::Module {
  explicit SelfAttentionImpl(torch::nn::MultiheadAttention Layer)
      : Layer(register_module("layer", std::move(Layer))) {}
  torch::Tensor forward(torch::Tensor X) {
    torch::Tensor SequenceFirst = X.transpose(0, 1);
    return std::get<0>(
               Layer->forward(SequenceFirst, SequenceFirst, SequenceFirst))
        .transpose(0, 1);
  }
  torch::nn::MultiheadAttention Layer;
};

template <typename Fn> torch::nn::AnyModule activation(Fn F) {
  return torch::nn::AnyModule(
      torch::nn::Functional([F](torch::Tensor X) { return F(X); }));
}

void Assembler::add(const LayerSpec &Spec) {
  const std::string &T = Spec.Type;
  bool First = Out.Model->size() == 0;
  if (T == "Linear") {
    torch::Tensor Current = probe();
    int64_t In = intArg(Spec, 0, Current.dim() >= 2 ? Current.size(-1) : 1,
                        "input features");
    int64_t OutFeatures = intArg(Spec, 1, 512, "output features");
    adaptTo({InputNeed::Features, In}, Spec);
    push(T, torch::nn::AnyModule(
                torch::nn::Linear(torch::nn::LinearOptions(In, OutFeatures)
                                      .bias(boolOption(Spec, "bias", true)))));
    Out.HasMatrixLayers = true;
  } else if (T == "Conv1d") {
    addConvolution<1>(Spec);
  } else if (T == "Conv2d") {
    addConvolution<2>(Spec);
  } else if (T == "Conv3d") {
    addConvolution<3>(Spec);
  } else if (T == "BatchNorm1d" || T == "BatchNorm2d" || T == "BatchNorm3d") {
    int64_t Dims = T[9] - '0';
    torch::Tensor Current = probe();
    int64_t Channels =
        intArg(Spec, 0, Current.dim() >= 2 ? Current.size(1) : 1, "features");
    adaptTo({InputNeed::Channels, Channels, Dims, Dims == 1}, Spec);
    if (Dims == 1)
      push(T, torch::nn::AnyModule(torch::nn::BatchNorm1d(Channels)));
    else if (Dims == 2)
      push(T, torch::nn::AnyModule(torch::nn::BatchNorm2d(Channels)));
    else
      push(T, torch::nn::AnyModule(torch::nn::BatchNorm3d(Channels)));
  } else if (T == "LayerNorm") {
    torch::Tensor Current = probe();
    int64_t Features = intArg(Spec, 0, Current.size(-1), "normalised size");
    adaptTo({InputNeed::Features, Features}, Spec);
    push(T, torch::nn::AnyModule(
                torch::nn::LayerNorm(torch::nn::LayerNormOptions({Features}))));
  } else if (T == "Embedding") {
    if (!First) {
      Assumptions.push_back(
          label(Spec) + " takes indices but follows other layers; left out");
      return;
    }
    int64_t Count = intArg(Spec, 0, 1000, "number of embeddings");
    int64_t Dim = intArg(Spec, 1, 128, "embedding size");
    Out.InputType = c10::ScalarType::Long;
    Out.IndexBound = Count;
    push(T, torch::nn::AnyModule(torch::nn::Embedding(Count, Dim)));
  } else if (T == "LSTM" || T == "GRU" || T == "RNN") {
    torch::Tensor Current = probe();
    int64_t In = intArg(Spec, 0, Current.size(-1), "input size");
    int64_t Hidden = intArg(Spec, 1, 256, "hidden size");
    adaptTo({InputNeed::Sequence, In}, Spec);
    if (T == "LSTM")
      push(T,
           torch::nn::AnyModule(
               std::make_shared<RecurrentOutputImpl<torch::nn::LSTM>>(
                   torch::nn::LSTM(
                       torch::nn::LSTMOptions(In, Hidden).batch_first(true)))));
    else if (T == "GRU")
      push(T,
           torch::nn::AnyModule(
               std::make_shared<RecurrentOutputImpl<torch::nn::GRU>>(
                   torch::nn::GRU(
                       torch::nn::GRUOptions(In, Hidden).batch_first(true)))));
    else
      push(T,
           torch::nn::AnyModule(
               std::make_shared<RecurrentOutputImpl<torch::nn::RNN>>(
                   torch::nn::RNN(
                       torch::nn::RNNOptions(In, Hidden).batch_first(true)))));
    Out.HasMatrixLayers = true;
  } else if (T == "MultiheadAttention") {
    torch::Tensor Current = probe();
    int64_t Embedding = intArg(Spec, 0, Current.size(-1), "embedding size");
    int64_t Heads = intArg(Spec, 1, 1, "number of heads");
    adaptTo({InputNeed::Sequence, Embedding}, Spec);
    push(T, torch::nn::AnyModule(std::make_shared<SelfAttentionImpl>(
                torch::nn::MultiheadAttention(Embedding, Heads))));
    Out.HasMatrixLayers = true;
  } else if (T == "ReLU") {
    push(T, activation([](const torch::Tensor &X) { return torch::relu(X); }));
  } else if (T == "ReLU6") {
    push(T, activation([](const torch::Tensor &X) {
           return torch::hardtanh(X, 0, 6);
         }));
  } else if (T == "LeakyReLU") {
    double Slope = 0.01;
    if (Spec.Options.contains("negative_slope") &&
        Spec.Options["negative_slope"].is_number())
      Slope = Spec.Options["negative_slope"].get<double>();
    push(T, activation([Slope](const torch::Tensor &X) {
           return torch::leaky_relu(X, Slope);
         }));
  } else if (T == "GELU") {
    push(T, activation([](const torch::Tensor &X) { return torch::gelu(X); }));
  } else if (T == "SiLU") {
    push(T, activation([](const torch::Tensor &X) { return torch::silu(X); }));
  } else if (T == "Sigmoid") {
    push(T,
         activation([](const torch::Tensor &X) { return torch::sigmoid(X); }));
  } else if (T == "Tanh") {
    push(T, activation([](const torch::Tensor &X) { return torch::tanh(X); }));
  } else if (T == "Softmax" || T == "LogSoftmax") {
    bool Log = T == "LogSoftmax";
    int64_t Dim = -1;
    if (!Spec.Args.empty() && Spec.Args[0].is_number_integer())
      Dim = Spec.Args[0].get<int64_t>();
    else
      Assumptions.push_back("the dimension of " + label(Spec) +
                            " is not a constant; the last one assumed");
    push(T, activation([Log, Dim](const torch::Tensor &X) {
           return Log ? torch::log_softmax(X, Dim) : torch::softmax(X, Dim);
         }));
  } else if (T == "Dropout" || T == "Dropout2d" || T == "AlphaDropout") {
    // Both variants must compute the same thing, and dropout draws random
    // masks: it is kept as a layer of no effect.
    Assumptions.push_back(label(Spec) + " is rebuilt with p = 0, so that the "
                                        "variants' results can be compared");
    push(T, torch::nn::AnyModule(torch::nn::Dropout(0.0)));
  } else if (T == "Flatten") {
    push(T, torch::nn::AnyModule(torch::nn::Flatten()));
  } else if (T == "MaxPool2d" || T == "AvgPool2d" || T == "AdaptiveAvgPool2d") {
    if (probe().dim() != 4) {
      Assumptions.push_back(label(Spec) +
                            " gets no image-shaped input here; left out");
      return;
    }
    int64_t Size = intArg(
        Spec, 0, 2, T == "AdaptiveAvgPool2d" ? "output size" : "kernel size");
    if (T == "MaxPool2d")
      push(T, torch::nn::AnyModule(torch::nn::MaxPool2d(Size)));
    else if (T == "AvgPool2d")
      push(T, torch::nn::AnyModule(torch::nn::AvgPool2d(Size)));
    else
      push(T, torch::nn::AnyModule(torch::nn::AdaptiveAvgPool2d(Size)));
  } else {
    Assumptions.push_back(label(Spec) +
                          " is not a layer the replay rebuilds; left out");
    return;
  }
  try {
    probe();
  } catch (const std::exception &E) {
    std::string What = E.what();
    throw std::runtime_error(
        label(Spec) + " rejects its input: " + What.substr(0, What.find('\n')));
  }
}

/// The sample shape the first layer of the recipe expects.
std::vector<int64_t> sampleShapeFor(const LayerSpec &First) {
  auto Arg = [&](size_t I, int64_t Default) {
    return I < First.Args.size() && First.Args[I].is_number_integer()
               ? First.Args[I].get<int64_t>()
               : Default;
  };
  if (First.Type == "Conv1d" || First.Type == "BatchNorm1d")
    return {Arg(0, 3), 128};
  if (First.Type == "Conv2d" || First.Type == "BatchNorm2d")
    return {Arg(0, 3), 32, 32};
  if (First.Type == "Conv3d" || First.Type == "BatchNorm3d")
    return {Arg(0, 3), 8, 32, 32};
  if (First.Type == "Embedding")
    return {16};
  if (First.Type == "LSTM" || First.Type == "GRU" || First.Type == "RNN" ||
      First.Type == "MultiheadAttention")
    return {16, Arg(0, 128)};
  return {Arg(0, 512)};
}

} // namespace

BuiltModel buildModel(const json &ModuleRecipe, const json &InputRecipe,
                      std::vector<std::string> &Assumptions) {
  std::vector<LayerSpec> Layers;
  flatten(ModuleRecipe, Layers, Assumptions);
  if (Layers.empty()) {
    Assumptions.push_back(
        "the module's construction is not known; a two-layer perceptron "
        "(Linear 512-512, ReLU, Linear 512-512) stands in for it");
    Layers = {{"Linear", json::array({512, 512}), json::object(), ""},
              {"ReLU", json::array(), json::object(), ""},
              {"Linear", json::array({512, 512}), json::object(), ""}};
  }
  BuiltModel Built;
  Built.Model = torch::nn::Sequential();
  Assembler Assemble(Built, Assumptions);
  std::vector<int64_t> Shape = knownShape(InputRecipe);
  if (Shape.size() >= 2 && Layers.front().Type != "Embedding") {
    Assemble.SampleShape.assign(Shape.begin() + 1, Shape.end());
  } else {
    Assemble.SampleShape = sampleShapeFor(Layers.front());
    Assumptions.push_back("the input's shape is not known; samples of shape " +
                          shapeText(Assemble.SampleShape) + " assumed");
  }
  for (const LayerSpec &Spec : Layers)
    Assemble.add(Spec);
  if (Built.Model->size() == 0)
    throw std::runtime_error("none of the module's layers can be rebuilt");
  Built.SampleShape = Assemble.SampleShape;
  return Built;
}

} // namespace torchlint::replay
