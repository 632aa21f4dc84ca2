#include "UserModel.h"

#include <sstream>

namespace torchlint::replay {

std::optional<std::vector<int64_t>> parseShape(const std::string &Text) {
  std::vector<int64_t> Shape;
  std::string Part;
  std::string Normalized = Text;
  for (char &C : Normalized)
    if (C == 'x' || C == 'X')
      C = ',';
  std::istringstream Parts(Normalized);
  while (std::getline(Parts, Part, ',')) {
    if (Part.empty() || Part.size() > 9 ||
        Part.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    int64_t Size = std::stoll(Part);
    if (Size <= 0)
      return std::nullopt;
    Shape.push_back(Size);
  }
  if (Shape.empty() || Shape.size() > 8 ||
      (!Normalized.empty() && Normalized.back() == ','))
    return std::nullopt;
  return Shape;
}

std::optional<std::vector<int64_t>>
modelInputShape(const nlohmann::json &Recipe, const ReplayContext &Ctx) {
  if (!Ctx.ModelInputShape.empty())
    return Ctx.ModelInputShape;
  for (const char *Key : {"input", "tensor"}) {
    if (!Recipe.is_object() || !Recipe.contains(Key) ||
        !Recipe[Key].is_object() || !Recipe[Key].contains("shape") ||
        !Recipe[Key]["shape"].is_array())
      continue;
    std::vector<int64_t> Shape;
    for (const nlohmann::json &Size : Recipe[Key]["shape"]) {
      if (!Size.is_number_integer() || Size.get<int64_t>() <= 0)
        return std::nullopt;
      Shape.push_back(Size.get<int64_t>());
    }
    if (!Shape.empty())
      return Shape;
  }
  return std::nullopt;
}

std::optional<LoadedUserModel> loadUserModel(const nlohmann::json &Recipe,
                                             ReplayContext &Ctx,
                                             const c10::Device &Device,
                                             std::string &Reason) {
  if (Ctx.ModelFile.empty()) {
    Reason = "no --model given";
    return std::nullopt;
  }
  std::optional<std::vector<int64_t>> Shape = modelInputShape(Recipe, Ctx);
  if (!Shape) {
    Reason = "the recipe does not say the model's input shape; give "
             "--input-shape (for example 1,3,224,224)";
    return std::nullopt;
  }
  LoadedUserModel Loaded;
  try {
    Loaded.Module = torch::jit::load(Ctx.ModelFile, Device);
  } catch (const std::exception &E) {
    Reason =
        "--model " + Ctx.ModelFile + " does not load: " + firstLine(E.what());
    return std::nullopt;
  }
  Loaded.Module.eval();
  torch::manual_seed(7);
  Loaded.Input = torch::rand(*Shape, torch::TensorOptions(Device));
  std::string Dims;
  for (int64_t Size : *Shape)
    Dims += (Dims.empty() ? "" : ",") + std::to_string(Size);
  Ctx.assume("the model of --model " + Ctx.ModelFile +
             ", run on a random float input of shape [" + Dims + "]" +
             (Ctx.ModelInputShape.empty() ? " (from the recipe)"
                                          : " (from --input-shape)"));
  return Loaded;
}

namespace {

std::optional<torch::Tensor> findTensor(const c10::IValue &Value) {
  if (Value.isTensor())
    return Value.toTensor();
  std::vector<c10::IValue> Parts;
  if (Value.isTuple())
    Parts = Value.toTupleRef().elements().vec();
  else if (Value.isList())
    Parts = Value.toListRef().vec();
  else if (Value.isGenericDict())
    for (const auto &Entry : Value.toGenericDict())
      Parts.push_back(Entry.value());
  for (const c10::IValue &Part : Parts)
    if (std::optional<torch::Tensor> Found = findTensor(Part))
      return Found;
  return std::nullopt;
}

} // namespace

torch::Tensor firstTensorOf(const c10::IValue &Output) {
  if (std::optional<torch::Tensor> Found = findTensor(Output))
    return *Found;
  throw std::runtime_error("the model's forward returned no tensor (" +
                           Output.tagKind() + ")");
}

} // namespace torchlint::replay
