#include "rules/EveryRankOnOneGpuCheck.h"

#include "matchers/EnvironmentApi.h"
#include "matchers/TorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

// The prose of the rule is its docs page,
// docs/rules/torch-every-rank-on-one-gpu.md.
const RuleInfo EveryRankOnOneGpuCheck::Info = {
    "torch-every-rank-on-one-gpu",
    "EveryRankOnOneGpu",
    "every process of a multi-process program places its work on the same "
    "GPU",
    Level::Warning,
    /*OffersFixIts=*/false,
    "performance,gpu,distributed,libtorch",
    "medium",
};

namespace {
/// The environment variables launchers (torchrun, mpirun, srun) give each
/// process its rank in.
bool isRankVariable(llvm::StringRef Name) {
  return llvm::is_contained({"RANK", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK",
                             "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_PROCID",
                             "SLURM_LOCALID", "PMI_RANK"},
                            Name);
}

bool inC10d(QualType T) {
  return T.getCanonicalType().getAsString().find("c10d::") != std::string::npos;
}

bool isDeviceGuard(QualType T) {
  const CXXRecordDecl *RD = api::bareType(T)->getAsCXXRecordDecl();
  if (!RD || !RD->getDeclName().isIdentifier())
    return false;
  return api::isInTorchNamespace(RD) &&
         llvm::is_contained({"CUDAGuard", "OptionalCUDAGuard", "DeviceGuard",
                             "OptionalDeviceGuard"},
                            RD->getName());
}
} // namespace

void EveryRankOnOneGpuCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName("::getenv", "::secure_getenv",
                                              "MPI_Comm_rank", "set_device",
                                              "::cudaSetDevice"))))
          .bind("call"),
      this);
  Finder->addMatcher(varDecl().bind("var"), this);
  Finder->addMatcher(api::environmentSetting().bind("setenv"), this);
  // `x.to(torch::kCUDA)` converts to TensorOptions, `model->to(...)` to a
  // Device.
  Finder->addMatcher(
      cxxConstructExpr(hasType(cxxRecordDecl(hasAnyName(
                           "::c10::Device", "::c10::TensorOptions"))))
          .bind("device"),
      this);
  Finder->addMatcher(
      cxxMemberCallExpr(callee(cxxMethodDecl(hasName("cuda")))).bind("cuda"),
      this);
}

void EveryRankOnOneGpuCheck::check(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call")) {
    const FunctionDecl *FD = Call->getDirectCallee();
    llvm::StringRef Name = FD->getName();
    if (Name == "set_device" || Name == "cudaSetDevice") {
      if (Name == "cudaSetDevice" || api::isInTorchNamespace(FD))
        CurrentDeviceSet = true;
      return;
    }
    if (Name == "MPI_Comm_rank") {
      if (!Rank)
        Rank = Call, RankWhat = "the MPI rank is read here";
      return;
    }
    const StringLiteral *Variable = Call->getNumArgs() == 1
                                        ? api::stringArgument(Call->getArg(0))
                                        : nullptr;
    if (Variable && Variable->getCharByteWidth() == 1 &&
        isRankVariable(Variable->getString()) && !Rank) {
      Rank = Call;
      RankWhat = "'" + Variable->getString().str() + "' is read here";
    }
    return;
  }
  if (const auto *Var = Result.Nodes.getNodeAs<VarDecl>("var")) {
    if (isDeviceGuard(Var->getType()))
      CurrentDeviceSet = true;
    else if (!Rank && inC10d(Var->getType()) && Var->getInit()) {
      Rank = Var->getInit();
      RankWhat = "a c10d process group is made here";
    }
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("setenv")) {
    std::optional<api::EnvironmentSetting> Setting =
        api::asEnvironmentSetting(Call);
    if (Setting && Setting->Name == "CUDA_VISIBLE_DEVICES" && !Setting->Value)
      VisibleDevicesChosen = true;
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("cuda")) {
    if (api::isTensorMethod(Call->getMethodDecl()) &&
        llvm::all_of(Call->arguments(), [](const Expr *Arg) {
          return isa<CXXDefaultArgExpr>(Arg);
        }))
      Choices.push_back({Call, -1});
    return;
  }
  const auto *Construct = Result.Nodes.getNodeAs<CXXConstructExpr>("device");
  std::optional<api::DeviceLiteral> Literal = api::asDeviceLiteral(Construct);
  // `is_available() ? kCUDA : kCPU` names the current GPU where there is one.
  if (!Literal && Construct->getNumArgs() >= 1)
    if (const auto *Choice = dyn_cast_or_null<ConditionalOperator>(
            api::ignoreWrappers(Construct->getArg(0))))
      for (const Expr *Branch : {Choice->getTrueExpr(), Choice->getFalseExpr()})
        if (std::optional<api::DeviceLiteral> L = api::asDeviceLiteral(Branch);
            L && L->Kind == api::DeviceKind::CUDA)
          Literal = L;
  if (!Literal || Literal->Kind != api::DeviceKind::CUDA)
    return;
  // An index computed at run time is taken to come from the rank.
  if (Construct->getNumArgs() >= 2 &&
      !isa<CXXDefaultArgExpr>(Construct->getArg(1)) &&
      !Construct->getArg(1)->isIntegerConstantExpr(*Ctx))
    return;
  Choices.push_back({Construct, Literal->Index});
}

void EveryRankOnOneGpuCheck::onEndOfTranslationUnit() {
  if (Rank && Ctx && !VisibleDevicesChosen)
    for (const Choice &C : Choices) {
      if (C.Index < 0 && CurrentDeviceSet)
        continue;
      const std::string Gpu =
          C.Index < 0 ? std::string("the current GPU, GPU 0 unless set,")
                      : "GPU " + std::to_string(C.Index);
      report(*Ctx, C.Where->getSourceRange(),
             "every process of this multi-process program puts this on " + Gpu +
                 " so one GPU does the work of every rank while the others "
                 "stay idle")
          .note(Rank->getSourceRange(),
                "the program runs as one process per rank: " + RankWhat)
          .remedy("choose the GPU from the local rank, "
                  "'torch::Device(torch::kCUDA, local_rank)', or set the "
                  "current device from it first");
    }
  Choices.clear();
  Rank = nullptr;
  RankWhat.clear();
  CurrentDeviceSet = false;
  VisibleDevicesChosen = false;
  Ctx = nullptr;
}

} // namespace torchlint
