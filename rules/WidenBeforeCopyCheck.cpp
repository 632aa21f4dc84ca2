#include "rules/WidenBeforeCopyCheck.h"

#include "common/Scenarios.h"

#include "analysis/Loops.h"
#include "analysis/StepContext.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

// The prose of the rule is its docs page,
// docs/rules/torch-widen-before-copy.md.
const RuleInfo WidenBeforeCopyCheck::Info = {
    "torch-widen-before-copy",
    "WidenBeforeCopy",
    "data is widened on the host before its copy to the GPU on every step",
    Level::Note,
    /*OffersFixIts=*/true,
    "performance,gpu,data-loading,libtorch",
    "medium",
};

namespace {
/// "4 times", "twice".
std::string times(unsigned Ratio) {
  return Ratio == 2 ? "twice" : std::to_string(Ratio) + " times";
}

std::string torchConstant(llvm::StringRef Dtype) {
  return llvm::StringSwitch<std::string>(Dtype)
      .Case("float32", "torch::kFloat")
      .Case("float64", "torch::kDouble")
      .Case("float16", "torch::kHalf")
      .Case("bfloat16", "torch::kBFloat16")
      .Case("int16", "torch::kShort")
      .Case("int32", "torch::kInt")
      .Case("int64", "torch::kLong")
      .Case("uint8", "torch::kByte")
      .Case("int8", "torch::kChar")
      .Default("");
}

} // namespace

void WidenBeforeCopyCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(matchers::tensorCopyCall().bind("copy"), this);
}

void WidenBeforeCopyCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("copy");
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  FactSet Destination;
  std::optional<DeviceCopy> Copy = copyToAccelerator(Call, Flow, Destination);
  if (!Copy)
    return;
  // Data already on a device is widened there.
  FactSet Source = Flow.devicesOf(Copy->Source);
  if (Source.empty() || llvm::any_of(Source, [](const DeviceFact &F) {
        return !F.isKnown() || F.Kind != api::DeviceKind::CPU;
      }))
    return;
  std::optional<HostWidening> Widening =
      widenedBeforeCopy(*Copy, Flow.cfgs(), Flow.index());
  if (!Widening)
    return;
  Repetition Repeated = repetitionOf(Call, Flow, &context().stepContext(Ctx));
  if (!Repeated || (Repeated.Loop && !Repeated.Call &&
                    inPeriodicBranch(Call, Repeated.Loop, Ctx)))
    return;

  unsigned Ratio = api::dtypeBytes(Widening->To) /
                   std::max(1u, api::dtypeBytes(Widening->From));
  std::string Device = acceleratorName(Destination);
  std::string Name = quoted(Copy->Source, Ctx, "the tensor");
  std::string Widened = "from " + Widening->From + " to " + Widening->To;
  std::string Cost = ", so " + times(Ratio) + " the bytes cross the bus";
  std::string Message;
  std::string Remedy;
  std::string Narrow = torchConstant(Widening->From);
  std::string Wide = torchConstant(Widening->To);
  switch (Widening->How) {
  case HostWidening::Form::InTheCopy:
    Message = Name + " is converted " + Widened +
              " on the host by its blocking copy to " + Device +
              " on every iteration" + Cost;
    Remedy = "copy it as it is and convert it on the device: "
             "'.to(device).to(" +
             Wide + ")'";
    break;
  case HostWidening::Form::OpenCv:
    Message = "OpenCV converts the image to " + Widening->To +
              " on the host before its copy to " + Device +
              " on every iteration, so " + times(Ratio) +
              " the bytes of the 8-bit image cross the bus";
    Remedy = "wrap the 8-bit image ('" + Narrow +
             "'), copy it, and convert and scale it on the device";
    break;
  case HostWidening::Form::InDataset:
    Message = Name + " is widened " + Widened +
              " by the dataset on the host before its copy to " + Device +
              " on every iteration" + Cost;
    Remedy = "return the " + Widening->From +
             " data from the dataset and convert it after the copy";
    break;
  default:
    Message = Name + " is widened " + Widened +
              " on the host before its copy to " + Device +
              " on every iteration" + Cost;
    Remedy = "copy the " + Widening->From +
             " data and convert it on the device: move the copy before the "
             "conversion";
    break;
  }

  FindingBuilder Finding = report(Ctx, Call->getSourceRange(), Message);
  Finding.remedy(Remedy);
  noteRunTimeChoices(Finding, Destination);
  if (Widening->Where != Call)
    Finding.note(Widening->Where->getSourceRange(),
                 Widening->How == HostWidening::Form::OpenCv
                     ? "converted to " + Widening->To + " here"
                     : "widened " + Widened + " here");
  noteRepeatingCall(Finding, Repeated);
  offerFix(Finding, *Copy, *Widening, Ctx);

  const Stmt *Step = stepOf(Repeated, Call, Flow);
  nlohmann::json Recipe{{"scenario", scenario::WidenBeforeCopy},
                        {"from", Widening->From},
                        {"to", Widening->To}};
  for (const DeviceFact &F : Source)
    if (nlohmann::json Tensor = recipe::describeTensor(F, Ctx);
        Tensor.contains("shape")) {
      Recipe["shape"] = Tensor["shape"];
      break;
    }
  const Expr *ModuleCall = api::firstModuleCall(Step);
  Recipe["module"] =
      ModuleCall
          ? recipe::describeModule(api::calledModule(ModuleCall), nullptr, Ctx)
          : nlohmann::json(nullptr);
  Finding.recipe(std::move(Recipe));
}

void WidenBeforeCopyCheck::offerFix(FindingBuilder &Finding,
                                    const DeviceCopy &Copy,
                                    const HostWidening &Widening,
                                    ASTContext &Ctx) {
  const CXXMemberCallExpr *Call = Copy.Call;
  if (Widening.How == HostWidening::Form::InTheCopy) {
    // `.to(device, dtype)`, nothing else written: `.to(device).to(dtype)`.
    unsigned Written = 0;
    for (const Expr *Arg : Call->arguments())
      Written += !isa<CXXDefaultArgExpr>(Arg);
    const auto *Member = dyn_cast<MemberExpr>(Call->getCallee());
    if (Written != 2 || !Member)
      return;
    std::string Device = api::sourceText(Copy.Target, Ctx);
    std::string Dtype = api::sourceText(Copy.DType, Ctx);
    if (Device.empty() || Dtype.empty())
      return;
    Finding.replace(SourceRange(Member->getMemberLoc(), Call->getEndLoc()),
                    "to(" + Device + ").to(" + Dtype + ")");
    return;
  }
  if (!Widening.NarrowInCopy || Copy.How == DeviceCopy::Form::CopyInto)
    return;
  // `narrow.to(kFloat).div(255).to(device)`: the copy's `.to(device)` goes
  // right after the narrow tensor.
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation AfterSource = Lexer::getLocForEndOfToken(
      Copy.Source->getEndLoc(), 0, SM, Ctx.getLangOpts());
  if (AfterSource.isInvalid())
    return;
  CharSourceRange Move = CharSourceRange::getCharRange(
      AfterSource,
      Lexer::getLocForEndOfToken(Call->getEndLoc(), 0, SM, Ctx.getLangOpts()));
  llvm::StringRef Text = Lexer::getSourceText(Move, SM, Ctx.getLangOpts());
  if (Text.empty() || !Text.ltrim().starts_with("."))
    return;
  Finding.insertAfter(Widening.NarrowInCopy->getEndLoc(), Text.trim());
  Finding.remove(Move);
}

} // namespace torchlint
