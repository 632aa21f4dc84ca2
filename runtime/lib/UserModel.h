//===--- UserModel.h - The program's own TorchScript model, if named -*- C++
//-*-//
//
// A recipe never names a model file to load: loading a TorchScript file runs
// its code, so a path taken from the analyzed source is never followed.
// `torchlint-replay --model FILE` names one; the scenarios that run a loaded
// model (setup-in-loop's load, unsynchronized-timing, eval-without-no-grad)
// then replay with it, on an input of the shape --input-shape gives, or else
// the recipe's (the from_blob sizes, a literal torch::zeros({...})).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RUNTIME_USERMODEL_H
#define TORCHLINT_RUNTIME_USERMODEL_H

#include "Scenario.h"

#include <torch/script.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torchlint::replay {

/// "1,3,224,224" (or with 'x'); nullopt for anything else, a dimension
/// that is not a positive integer included.
std::optional<std::vector<int64_t>> parseShape(const std::string &Text);

/// The input shape for the user's model: Ctx's --input-shape, else the
/// recipe's "input" (or "tensor") shape when every dimension is known.
std::optional<std::vector<int64_t>>
modelInputShape(const nlohmann::json &Recipe, const ReplayContext &Ctx);

/// The model Ctx names, loaded on Device, with a random float input of the
/// shape above; nullopt with Reason set when there is none to run (no
/// --model, no shape, a file that does not load).
struct LoadedUserModel {
  torch::jit::Module Module;
  torch::Tensor Input;
};
std::optional<LoadedUserModel> loadUserModel(const nlohmann::json &Recipe,
                                             ReplayContext &Ctx,
                                             const c10::Device &Device,
                                             std::string &Reason);

/// What a model's forward returned, as one tensor: the tensor itself, or
/// the first tensor of a tuple, list or dict (detection heads return
/// several). Throws std::runtime_error when there is none.
torch::Tensor firstTensorOf(const c10::IValue &Output);

} // namespace torchlint::replay

#endif // TORCHLINT_RUNTIME_USERMODEL_H
