//===--- TorchApi.h - What libtorch's C++ API looks like in the AST -*- C++
//-*-//
//
// Rules and analyses recognise libtorch through stable qualified names and
// signatures (at::Tensor, c10::Device, torch::nn::Module, ...), never through
// header internals, so that libtorch 1.13 and 2.x are both understood.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_MATCHERS_TORCHAPI_H
#define TORCHLINT_MATCHERS_TORCHAPI_H

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace torchlint::api {

enum class DeviceKind : unsigned char { Unknown, CPU, CUDA, Other };

const char *deviceKindName(DeviceKind Kind);

/// A device written out in the source: torch::kCUDA, c10::DeviceType::CPU,
/// torch::Device("cuda:1"), torch::Device(torch::kCUDA, 0).
struct DeviceLiteral {
  DeviceKind Kind = DeviceKind::Unknown;
  int Index = -1;
  /// The expression that names the kind: the kCUDA reference, the string.
  const clang::Expr *Spelling = nullptr;
};

/// Strips implicit casts, parentheses, temporaries, cleanups and copy or move
/// constructions that do not change a value.
const clang::Expr *ignoreWrappers(const clang::Expr *E);

/// Strips references, cv-qualifiers and sugar.
clang::QualType bareType(clang::QualType T);

bool isTensor(clang::QualType T);

/// std::tuple or std::pair holding a tensor (directly or in a nested tuple):
/// what forward() of a recurrent module, or a project's loader, gives back.
bool isTensorTuple(clang::QualType T);
/// A sequence of tensors: std::vector<at::Tensor>, at::TensorList
/// (c10::ArrayRef<at::Tensor>), at::ITensorListRef (c10::IListRef, what
/// torch::cat takes), std::initializer_list<at::Tensor>; or of TorchScript
/// values (std::vector<c10::IValue>, what a TorchScript module's forward
/// takes). Its device facts are those of its elements, joined.
bool isTensorSequence(clang::QualType T);

/// A standard container (vector, list, map, ...) whose elements are modules,
/// module holders or pointers to modules.
bool isModuleContainer(clang::QualType T);

/// std::tie(...) or std::forward_as_tuple(...): a tuple of references whose
/// assignment assigns each of its arguments.
bool isTupleOfReferences(const clang::CallExpr *Call);

/// std::get<N>(tuple), one of the tuple's elements.
bool isTupleGet(const clang::CallExpr *Call);
bool isTensorOptions(clang::QualType T);
/// torch::nn::utils::rnn::PackedSequence: its data() is a tensor.
bool isPackedSequence(clang::QualType T);
bool isDevice(clang::QualType T);
bool isDeviceType(clang::QualType T);
bool isScalarType(clang::QualType T);
/// Device, DeviceType or TensorOptions: anything that names a device.
bool isDeviceLike(clang::QualType T);
/// The device a string names ("cuda:1", "cpu"), if it names one.
std::optional<DeviceLiteral> parseDeviceString(llvm::StringRef S,
                                               const clang::Expr *Spelling);
/// Text a program may name a device with: std::string, std::string_view,
/// a C string.
bool isStringLike(clang::QualType T);
/// c10::optional<c10::Device> (std::optional in libtorch 2.x): what
/// torch::jit::load takes.
bool isOptionalDevice(clang::QualType T);
/// A pointer to a device, raw or smart (`std::shared_ptr<torch::Device>`):
/// a program that shares one device between its parts.
bool isDevicePointer(clang::QualType T);
/// torch::jit::load(path or stream[, device]), which gives a TorchScript
/// module.
bool isScriptModuleLoad(const clang::FunctionDecl *FD);

bool isModuleClass(const clang::CXXRecordDecl *RD);
/// torch::jit::Module (torch::jit::script::Module names it too): a
/// TorchScript module, most often loaded from a file that Python exported.
/// Its parameters are on the devices it was saved from until the program
/// moves it, and its layers are not in the program's source.
bool isScriptModuleClass(const clang::CXXRecordDecl *RD);
/// A value that TorchScript passes tensors in and out with: c10::IValue, the
/// tuple, list or dict one holds (and the intrusive pointer toTuple() gives).
/// Its device facts are those of the tensors it holds.
bool isScriptValue(clang::QualType T);
/// What a module call's input may be: a tensor, a sequence or tuple of them,
/// or a TorchScript value.
bool carriesTensors(clang::QualType T);
/// A value that holds tensors without being one of the kinds above: a class
/// of the program with a tensor among its members (a batch, a sample, a
/// result), a std::any, or a standard container, map or optional of these or
/// of tensors (`std::map<std::string, std::any>`). Its device facts are
/// those of the tensors it holds.
bool isTensorCarrier(clang::QualType T);
/// The torch::nn::Module subclass (or torch::jit::Module) that a value of type
/// T gives access to: a ModuleHolder (torch::nn::Linear, TORCH_MODULE types), a
/// shared_ptr to a module, the module itself, a pointer or reference to it.
/// Null otherwise.
const clang::CXXRecordDecl *moduleClassOf(clang::QualType T);
/// The module whose tensors E reads: `model->parameters()`,
/// `model.named_parameters()`, `model->buffers()`; null otherwise.
const clang::Expr *parametersOwner(const clang::Expr *E);
/// A member of a module class that `module->to(device)` moves: a submodule,
/// or a tensor the class registers as a parameter or buffer (every tensor
/// of libtorch's own modules). A plain tensor member stays where it was made.
bool movesWithItsModule(const clang::FieldDecl *Member);
/// Loss modules (CrossEntropyLoss, NLLLoss, MSELoss, ...) own no parameters.
bool isLossModule(const clang::CXXRecordDecl *Impl);
/// A module with no parameters or buffers (a loss, an activation, dropout,
/// pooling, or a user module that registers none): it runs wherever its
/// inputs are, so it has no device of its own.
bool isParameterFree(const clang::CXXRecordDecl *Impl);

/// The data loader's dataset (found in the loader type's template arguments)
/// is a user class that handles devices or pinning itself: its batches may
/// already be on the GPU, or in pinned memory.
bool datasetHandlesDevices(clang::QualType LoaderType);

/// torch::data::Example, an iterator of a data loader, a vector of examples
/// or a data loader itself: values that come out of a data loader.
bool isDataLoaderValue(clang::QualType T);
bool isExample(clang::QualType T);

/// The declaration is in one of libtorch's namespaces (torch, at, c10).
bool isInTorchNamespace(const clang::Decl *D);
/// The function's name in libtorch, or empty if it is not libtorch's.
llvm::StringRef torchFunctionName(const clang::FunctionDecl *FD);

bool isFactoryFunction(const clang::FunctionDecl *FD);
bool isLikeFactory(const clang::FunctionDecl *FD);
bool isLossFunction(const clang::FunctionDecl *FD);
/// Argument Index of a call to FD must be a CPU tensor: the lengths of
/// torch::nn::utils::rnn::pack_padded_sequence.
bool needsCpuArgument(const clang::FunctionDecl *FD, unsigned Index);

/// The method is declared by at::Tensor (or at::TensorBase) with this name.
bool isTensorMethod(const clang::CXXMethodDecl *MD, llvm::StringRef Name = "");
/// A tensor method whose result stays on the tensor's device and shares its
/// memory unless a copy is needed: views (view, narrow, permute, ...),
/// detach, contiguous, pin_memory, requires_grad_.
bool isViewMethod(llvm::StringRef Name);
/// The method is torch::nn::Module::to or torch::jit::Module::to.
bool isModuleTo(const clang::CXXMethodDecl *MD);
/// The method is torch::nn::Module's or torch::jit::Module's, with this name
/// ("train", "eval").
bool isModuleMethod(const clang::CXXMethodDecl *MD, llvm::StringRef Name);
/// The name of the dtype a ScalarType constant names (torch::kHalf,
/// at::kFloat16, c10::ScalarType::BFloat16) as the recipes write it: "float16",
/// "bfloat16", ...; empty when E is not such a constant.
std::string scalarTypeName(const clang::Expr *E);
/// The dtype that a ScalarType, or TensorOptions built with one
/// (`.dtype(k)`, `torch::dtype(k)`, `TensorOptions(k)`), names; empty when
/// it names none.
std::string dtypeNameOf(const clang::Expr *E);
/// The bytes of one element of a dtype scalarTypeName names; 0 if unknown.
unsigned dtypeBytes(llvm::StringRef Dtype);

/// Autograd's backward pass: tensor.backward(), torch::autograd::backward()
/// or torch::autograd::grad().
bool isBackwardCall(const clang::CallExpr *Call);
/// A class derived from torch::optim::Optimizer (SGD, Adam, ...).
bool isOptimizerClass(const clang::CXXRecordDecl *RD);

/// The calls that clone a module once per device, from
/// torch/nn/parallel/data_parallel.h: data_parallel(module, input[, devices])
/// and replicate(module, devices), which always clones.
enum class Replication { None, DataParallel, Replicate };
Replication replicationOf(const clang::CallExpr *Call);
/// How many devices such a call spreads the module over, as its devices
/// argument shows: one (a list of one device: data_parallel then clones
/// nothing), every visible GPU (data_parallel's devices left out), or
/// several (a longer list, or one the program computes).
enum class DeviceCount { One, AllVisible, Several };
DeviceCount replicationDevices(const clang::CallExpr *Call);
/// The class derives from torch::nn::Cloneable<...>, whose clone() rebuilds
/// the module with reset(); torch::nn::Module's own clone() throws.
bool isCloneableClass(const clang::CXXRecordDecl *RD);
/// An optimizer's (or a learning-rate scheduler's) step() or zero_grad().
bool isOptimizerCall(const clang::CallExpr *Call);
/// `model` for `model->`, which holders and shared_ptrs are accessed through.
const clang::Expr *withoutArrow(const clang::Expr *E);
/// A call that runs a module: module->forward(...), module(...), an
/// AnyModule's forward(...); for a
/// TorchScript module, module.forward(inputs), module.run_method("forward",
/// x) and module.get_method("forward")(inputs).
bool isModuleCall(const clang::Expr *E);
/// The first module call in S, in source order (lambdas included), or null.
const clang::Expr *firstModuleCall(const clang::Stmt *S);
/// The expression of the module that a module call runs, or null.
const clang::Expr *calledModule(const clang::Expr *Call);
/// The index of a module call's first input among its arguments: 1 for
/// `module(x)`, where the module is argument 0, and for run_method, whose
/// first argument names the method; 0 for `module->forward(x)`.
unsigned moduleInputIndex(const clang::Expr *ModuleCall);
/// A module call's inputs as written: its arguments that carry tensors, and
/// the elements of a braced list it is given (`module.forward({frame})`),
/// each without its conversion to c10::IValue.
llvm::SmallVector<const clang::Expr *, 2>
moduleInputs(const clang::Expr *ModuleCall);
/// A module call's first input, or null when it has none.
const clang::Expr *moduleInput(const clang::Expr *ModuleCall);

std::optional<DeviceLiteral> asDeviceLiteral(const clang::Expr *E);

/// The string literal E is, also as the std::string made from it (an
/// argument that takes a std::string); null otherwise.
const clang::StringLiteral *stringArgument(const clang::Expr *E);
/// The text of the narrow string literal E is (stringArgument), or none.
std::optional<std::string> literalText(const clang::Expr *E);
/// torch::nn::Module's register_module, register_parameter or
/// register_buffer: the method's name, or empty for any other call.
llvm::StringRef registrationName(const clang::CallExpr *Call);

/// A zero-dimensional tensor as written: a full reduction (x.sum(),
/// x.mean()), torch::tensor(3.0), torch::scalar_tensor(1). PyTorch lets a CPU
/// scalar tensor meet a GPU tensor in arithmetic.
bool isScalarTensor(const clang::Expr *E);

/// What a condition says about CUDA being available when it holds, and when
/// it does not. torch::cuda::is_available() says both; `use_gpu &&
/// torch::cuda::is_available()` only that it is available when it holds.
struct Availability {
  bool TrueMeansAvailable = false;
  bool TrueMeansUnavailable = false;
  bool FalseMeansAvailable = false;
  bool FalseMeansUnavailable = false;

  Availability negated() const {
    return {FalseMeansAvailable, FalseMeansUnavailable, TrueMeansAvailable,
            TrueMeansUnavailable};
  }
  /// Whether the branch taken when the condition is Value can run on a
  /// machine where CUDA is (or is not) available.
  bool branchPossible(bool Value, bool CudaAvailable) const {
    if (Value)
      return CudaAvailable ? !TrueMeansUnavailable : !TrueMeansAvailable;
    return CudaAvailable ? !FalseMeansUnavailable : !FalseMeansAvailable;
  }
};

/// Reads torch::cuda::is_available(), device_count() > 0 (and their
/// negations, conjunctions and disjunctions, through __builtin_expect as
/// TORCH_CHECK expands, and through a bool initialised from them).
Availability availabilityOf(const clang::Expr *Cond);

/// The call is torch::cuda::is_available() or an equivalent query.
bool isAvailabilityQuery(const clang::Expr *E);

/// The value of a constant boolean expression (true, false, a constexpr).
std::optional<bool> constantBool(const clang::Expr *E,
                                 const clang::ASTContext &Ctx);

/// Source text of an expression, as written (after macro expansion to file
/// locations); empty when it cannot be retrieved.
std::string sourceText(const clang::Expr *E, const clang::ASTContext &Ctx);

} // namespace torchlint::api

#endif // TORCHLINT_MATCHERS_TORCHAPI_H
