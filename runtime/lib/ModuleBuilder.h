//===--- ModuleBuilder.h - A module rebuilt from its recipe -----*- C++ -*-===//
//
// The analyzer records how a module was constructed: its torch::nn layers
// with their constant arguments, nested Sequentials, and the submodules a
// user module registers. A user module's forward() is not recorded, so its
// submodules are applied in the order they were registered, and where one
// layer's output does not fit the next layer's input an adapter (flatten,
// adaptive pooling, reshape) is put between them. Every such choice, and
// every default for an unknown argument, is written down as an assumption.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_MODULEBUILDER_H
#define TORCHLINT_RUNTIME_MODULEBUILDER_H

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace torchlint::replay {

struct BuiltModel {
  torch::nn::Sequential Model;
  /// The shape of one sample, without the batch dimension.
  std::vector<int64_t> SampleShape;
  c10::ScalarType InputType = c10::ScalarType::Float;
  /// For index inputs (an Embedding first): the exclusive upper bound.
  int64_t IndexBound = 0;
  bool HasConvolution = false;
  /// Linear, convolution, attention or recurrent layers: what mixed
  /// precision and TF32 speed up.
  bool HasMatrixLayers = false;
  std::vector<std::string> Layers; // one name per layer, adapters included
};

/// Builds the model of ModuleRecipe; InputRecipe (may be null) fixes the
/// sample shape where its shape is fully known. Throws std::runtime_error
/// with the reason when no model can be assembled.
BuiltModel buildModel(const nlohmann::json &ModuleRecipe,
                      const nlohmann::json &InputRecipe,
                      std::vector<std::string> &Assumptions);

/// No replayed tensor holds more elements (16 GiB in fp32).
constexpr double MaxReplayElements = 4e9;

/// The shape of a tensor recipe when every dimension is a known integer,
/// else empty. Throws std::invalid_argument for a dimension that is not a
/// positive integer, or a tensor over MaxReplayElements.
std::vector<int64_t> knownShape(const nlohmann::json &TensorRecipe);

/// The dtype a recipe names ("float32", "bfloat16", ...), or Default.
c10::ScalarType scalarTypeNamed(const nlohmann::json &Name,
                                c10::ScalarType Default);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_MODULEBUILDER_H
