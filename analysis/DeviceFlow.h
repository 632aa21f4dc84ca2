//===--- DeviceFlow.h - On which device does a value live -------*- C++ -*-===//
//
// The shared device-flow analysis answers "on which device is this tensor,
// module or device value here". It is a forward may-analysis, a lattice on
// the ForwardFlow engine, over each user function's CFG that follows values
// through local variables, assignments, branches and loops, into and out of the
// translation unit's own functions (parameters bound from the call sites,
// return values, modules moved through a reference) and through class members
// (a model moved in a constructor and used in a method).
//
// The analysis describes a run on one kind of machine. With a GPU, a branch on
// torch::cuda::is_available() takes its "available" side: that is where a
// device mismatch costs, and it makes `is_available() ? kCUDA : kCPU` simply
// the GPU. Without a GPU it takes the other side: what still reaches CUDA
// there aborts. Values read from the same device variable stay correlated
// through their symbol, so `model->to(device)` and `x.to(device)` agree
// whatever `device` holds.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_DEVICEFLOW_H
#define TORCHLINT_ANALYSIS_DEVICEFLOW_H

#include "analysis/FunctionCfg.h"
#include "analysis/Summaries.h"
#include "analysis/UnitIndex.h"
#include "matchers/TorchApi.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class CXXConstructorDecl;
class CXXMemberCallExpr;
class LambdaExpr;
class MangleContext;
class MemberExpr;
} // namespace clang

namespace torchlint {

class UserCode;

/// How a value came to be on its device; rules phrase their notes from it.
enum class Provenance : unsigned char {
  Unknown,
  DeviceLiteral,  ///< a device written in the source
  DefaultOptions, ///< TensorOptions without a device: the CPU
  Factory,        ///< torch::randn(...) and friends
  FromBlob,       ///< torch::from_blob over host memory
  DataLoader,     ///< a batch out of a data loader
  Loaded,         ///< torch::load into a tensor
  MovedTo,        ///< tensor.to(device)
  ToCuda,         ///< tensor.cuda()
  ToCpu,          ///< tensor.cpu()
  ModuleCreated,  ///< a module constructed, parameters on the CPU
  ModuleMoved,    ///< module->to(device)
  ModuleOutput,   ///< the result of running a module
  ChosenByCaller, ///< a device parameter that no caller in the unit sets
  ModuleLoaded,   ///< torch::jit::load(path, device)
  NamedAtRunTime, ///< a device named by text the program reads at run time
};
/// The last enumerator, for readers of serialized facts.
constexpr Provenance LastProvenance = Provenance::NamedAtRunTime;

/// One possibility for where a value lives.
struct DeviceFact {
  api::DeviceKind Kind = api::DeviceKind::Unknown;
  int Index = -1;
  Provenance How = Provenance::Unknown;
  /// The device variable the device was read from, if any: two values that
  /// read the same variable are on the same device.
  const clang::ValueDecl *Symbol = nullptr;
  /// The device argument of the move (`device` in `x.to(device)`), for fix-its.
  const clang::Expr *DeviceExpr = nullptr;
  /// The device literal (torch::kCPU, "cuda", .cpu()) the device comes from.
  const clang::Expr *Literal = nullptr;
  /// Where the value got this device: the move, the factory, the loop; or,
  /// for a member constructed implicitly, its declaration.
  const clang::Stmt *Origin = nullptr;
  const clang::Decl *OriginDecl = nullptr;
  /// Host memory that is page-locked (`.pin_memory()`, `pinned_memory(true)`
  /// options): the GPU can copy from it asynchronously.
  bool Pinned = false;
  /// The GPU only on the runs where a choice made at run time makes it one:
  /// a device parameter whose callers are elsewhere. The opportunity rules
  /// count it as the GPU; no error does (mayDiffer).
  bool RunTimeChoice = false;
  /// For a fact another unit told of: where in that unit the value got its
  /// device, if known (owned by the DeviceFlow).
  const Span *Remote = nullptr;

  clang::SourceRange originRange() const;

  bool isKnown() const { return Kind != api::DeviceKind::Unknown; }
  bool operator==(const DeviceFact &O) const;
  bool operator!=(const DeviceFact &O) const { return !(*this == O); }
  bool operator<(const DeviceFact &O) const;
};

/// The devices a value may be on. Empty means "no value reaches here" (an
/// unreachable path, an empty module holder); an Unknown fact means "could be
/// anywhere".
using FactSet = llvm::SmallVector<DeviceFact, 2>;

/// True when some pair of known facts puts the two values on different
/// devices and the two facts are not read from the same device variable. A
/// device chosen at run time differs from nothing: an error needs a path that
/// really puts the two apart.
bool mayDiffer(const DeviceFact &A, const DeviceFact &B);

/// The machine a run of the program is imagined on.
enum class Machine { WithGpu, WithoutGpu };

class DeviceFlow {
public:
  DeviceFlow(clang::ASTContext &Ctx, const UserCode &Code, UnitIndex &Index,
             Machine On);
  ~DeviceFlow();

  clang::ASTContext &astContext() const { return Ctx; }
  /// The CFGs it runs on, and with them its budget.
  FunctionCfgCache &cfgs() { return Cfgs; }
  Machine machine() const { return On; }

  /// The devices the tensor, module or device expression E may be on when it
  /// is evaluated, in its enclosing function. Empty when E does not run on
  /// this machine or is not in a user function.
  FactSet devicesOf(const clang::Expr *E);

  /// False when S does not run on this machine: the other branch of an
  /// availability check, a function only called from there, dead code.
  bool reachable(const clang::Stmt *S);

  /// Who calls what in the unit, which the flow follows across calls.
  UnitIndex &index() { return Index; }

  /// What the other units of the program tell this one: the arguments their
  /// calls pass to its functions, what the functions it calls return. Set
  /// before the first question; null (the default) for a unit on its own.
  void importSummaries(const ImportedSummaries *Imports) {
    this->Imports = Imports;
  }
  /// What this unit tells the others, including which of their summaries it
  /// looked for.
  UnitSummary summarize();
  using CallSite = UnitIndex::CallSite;

  /// The name that identifies a function in every unit (its mangled name),
  /// if other units can call it: the key of the summaries.
  std::optional<std::string> linkName(const clang::FunctionDecl *FD);

private:
  struct Analysis;
  struct Lattice;
  /// Keyed by where a value is kept: a variable, a member of `this` (their
  /// declarations), or a member of a local object (a key made for the pair).
  using Storage = const void *;
  using State = llvm::DenseMap<Storage, FactSet>;
  using Bindings = std::vector<FactSet>;

  Analysis *standalone(const clang::FunctionDecl *FD);
  Analysis *analyze(const clang::FunctionDecl *FD, const Bindings &Params);
  void run(Analysis &A);
  /// The facts of the arms of `c ? a : b` that can run on this machine,
  /// each evaluated by Eval: one arm where the condition is known here
  /// (a CUDA availability check), both merged otherwise.
  FactSet
  evalTakenArms(const clang::ConditionalOperator *Cond,
                llvm::function_ref<FactSet(const clang::Expr *)> Eval) const;
  bool functionReachable(const clang::FunctionDecl *FD);
  static bool mergeState(State &Into, const State &From);
  void transfer(Analysis &A, State &S, const clang::CFGElement &Element);
  /// Modules that E puts in a container: code that walks the container may
  /// move them, so where they are is no longer known.
  void forgetModulesIn(Analysis &A, State &S, const clang::Expr *E);
  /// Assigns each variable that a std::tie or std::forward_as_tuple names.
  void assignTied(Analysis &A, State &S, const clang::CallExpr *Tie,
                  const FactSet &Facts);
  std::optional<State> stateBefore(Analysis &A, const clang::Stmt *S);

  FactSet eval(Analysis &A, const State &S, const clang::Expr *E);
  FactSet evalCall(Analysis &A, const State &S, const clang::CallExpr *Call);
  /// The device a move names (`to(device)`, `to(options)` with a device,
  /// `cuda()`, `cpu()`), of a tensor or of an object of the program that
  /// carries tensors; nullopt when the call names none.
  std::optional<FactSet> destinationOf(Analysis &A, const State &S,
                                       const clang::CXXMemberCallExpr *Call);
  /// A method of an object that carries tensors (api::isTensorCarrier)
  /// that moves them or reads one; nullopt for any other.
  std::optional<FactSet>
  evalCarrierMethod(Analysis &A, const State &S,
                    const clang::CXXMemberCallExpr *Call);
  /// Where the tensors an object is built from are (`Pack{{"x", x}}`).
  FactSet heldTensors(Analysis &A, const State &S, const clang::Expr *E);
  /// What a module call gives back: the module's device where it is known,
  /// else (a module without parameters, one loaded from a file) its inputs'.
  FactSet moduleOutput(Analysis &A, const State &S,
                       const clang::CallExpr *Call);
  /// Where a module of T is when built: where its class's constructor moves
  /// it (`this->to(device)`, in Called or, for a holder, in every
  /// constructor of the class), else on the CPU. Origin is the construction.
  FactSet builtModule(clang::QualType T,
                      const clang::CXXConstructorDecl *Called,
                      const clang::Stmt *Origin, const clang::Decl *OriginDecl);
  /// torch::jit::load(path[, device]): the module is on the device named, or
  /// on the devices it was saved from, which the program does not say.
  FactSet loadedModule(Analysis &A, const State &S,
                       const clang::CallExpr *Call);
  FactSet evalDeclRef(Analysis &A, const State &S, const clang::ValueDecl *D);
  FactSet evalDevice(Analysis &A, const State &S, const clang::Expr *E);
  FactSet evalOptions(Analysis &A, const State &S, const clang::Expr *E);
  /// A pointer to a device (`std::make_shared<torch::Device>(...)`, a
  /// member holding one): the device it points to.
  FactSet evalDevicePointer(Analysis &A, const State &S, const clang::Expr *E);
  /// The tensors and submodules of the module Module is (its parameters(),
  /// `model->fc->weight`): where the module is.
  FactSet tensorsOfModule(Analysis &A, const State &S,
                          const clang::Expr *Module);
  /// Device(Name) for text Name: the device a literal (or a variable only
  /// ever set to one) names; `"cuda:" + index` is a GPU; text read at run
  /// time (a flag, a configuration) is a GPU on the runs that name one.
  FactSet namedDevice(const clang::Expr *Name, const clang::Expr *Device);
  FactSet calleeReturn(Analysis &A, const State &S,
                       const clang::FunctionDecl *Callee,
                       llvm::ArrayRef<const clang::Expr *> Args);
  /// What Call of the program's function Declared returns: solved here when
  /// this unit has its body (and analyzes it), else, with AskOtherUnits, as
  /// the unit that defines it tells; none when neither knows.
  std::optional<FactSet> programCallReturn(Analysis &A, const State &S,
                                           const clang::CallExpr *Call,
                                           const clang::FunctionDecl *Declared,
                                           bool AskOtherUnits);
  void applyCalleeEffects(Analysis &A, State &S,
                          const clang::FunctionDecl *Callee,
                          llvm::ArrayRef<const clang::Expr *> Args);
  FactSet fieldFacts(const clang::FieldDecl *Field);
  FactSet paramFacts(const clang::ParmVarDecl *Param);
  FactSet memberDeviceOfObject(Analysis &A, const State &S,
                               const clang::MemberExpr *Member);
  FactSet assignedGlobalFacts(const clang::VarDecl *Global,
                              const clang::FieldDecl *Member, FactSet Initial);
  FactSet capturedFacts(const clang::FunctionDecl *Lambda,
                        const clang::VarDecl *Var);
  /// The facts of the values Analysis C returns.
  FactSet returnedFacts(Analysis &C);
  /// A sequence or tuple of tensors built here ({a, b}, a vector made from
  /// an initializer list, a TensorList from a vector): its elements' facts.
  std::optional<FactSet> evalAggregate(Analysis &A, const State &S,
                                       const clang::Expr *E);
  /// seq.push_back(t), seq[i] = t: Sequence may now hold t's device too.
  void addToSequence(Analysis &A, State &S, const clang::Expr *Sequence,
                     const FactSet &Facts);
  /// A function the unit cannot see may fill what it is given by reference:
  /// what the unit that defines it says it leaves there, else, for
  /// sequences and tuples, something no longer known.
  void forgetFilledByUnknownCallee(Analysis &A, State &S,
                                   const clang::FunctionDecl *Callee,
                                   llvm::ArrayRef<const clang::Expr *> Args);

  /// What the other units pass for Param of a function of this unit.
  std::optional<FactSet> importedCallerFacts(const clang::ParmVarDecl *Param);
  /// What Callee, defined in another unit, returns for these arguments.
  std::optional<FactSet>
  importedReturn(Analysis &A, const State &S, const clang::CallExpr *Call,
                 const clang::FunctionDecl *Callee,
                 llvm::ArrayRef<const clang::Expr *> Args);
  /// What Callee, defined in another unit, leaves in the argument at
  /// Position that it takes by reference (Argument: where it is written).
  std::optional<FactSet> importedFill(Analysis &A, const State &S,
                                      const clang::FunctionDecl *Callee,
                                      unsigned Position,
                                      const clang::Expr *Argument);
  /// Param is a non-const reference to a tensor, or to a value that holds
  /// tensors: a function can fill it for its caller.
  static bool isFilledThrough(const clang::ParmVarDecl *Param);
  /// The summary the unit that defines Callee exports for it, asked for
  /// (so a later round brings it); null when none is known yet.
  const ReturnSummary *importedSummaryOf(const clang::FunctionDecl *Callee);
  DeviceFact fromRemote(const RemoteFact &R);
  /// Remote facts as this unit's, the known ones put on the device at At.
  FactSet fromRemote(const RemoteFacts &Remote, const clang::Expr *At);
  RemoteFact toRemote(const DeviceFact &F);

  /// Where E is kept, or null for a temporary. Create: make the key of a
  /// member of a local object if it does not exist yet.
  Storage storageOf(Analysis &A, const clang::Expr *E, bool Create);
  /// The variable a reference or a copied module holder stands for.
  const clang::Decl *canonical(const Analysis &A, const clang::Decl *D) const;
  /// Assigns Target, forgetting what was known of its members.
  void assign(State &S, Storage Target, FactSet Facts);
  FactSet dataLoaderFacts(const clang::Expr *E);
  bool isTracked(clang::QualType T) const;

  clang::ASTContext &Ctx;
  const UserCode &Code;
  UnitIndex &Index;
  Machine On;
  FunctionCfgCache Cfgs;

  std::map<std::pair<const clang::Decl *, const clang::Decl *>,
           std::unique_ptr<char>>
      MemberKeys;
  llvm::DenseMap<Storage, const clang::Decl *> MemberKeyBase;

  llvm::DenseMap<const clang::FunctionDecl *,
                 std::vector<std::unique_ptr<Analysis>>>
      Analyses;
  llvm::DenseMap<const clang::FunctionDecl *, Analysis *> Standalone;
  llvm::DenseMap<const clang::FieldDecl *, FactSet> Fields;
  llvm::DenseSet<const clang::FieldDecl *> FieldsInProgress;
  llvm::DenseMap<const clang::ParmVarDecl *, FactSet> ParamCache;
  std::map<std::pair<const clang::VarDecl *, const clang::FieldDecl *>,
           std::optional<FactSet>>
      GlobalCache; ///< nullopt while in progress
  llvm::DenseSet<const clang::FunctionDecl *> StandaloneInProgress;
  llvm::DenseMap<const clang::FunctionDecl *, bool> Reachable;
  unsigned Depth = 0;
  unsigned EvalNesting = 0;

  const ImportedSummaries *Imports = nullptr;
  std::set<std::string> AskedCallers;
  std::set<std::string> AskedReturns;
  std::deque<Span> RemoteOrigins;
  std::map<std::tuple<std::string, unsigned, unsigned>, const Span *>
      RemoteSpans;
  std::unique_ptr<clang::MangleContext> Mangler;
  llvm::DenseMap<const clang::FunctionDecl *, std::optional<std::string>>
      LinkNames;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_DEVICEFLOW_H
