#include "rules/CpuTensorThenMovedCheck.h"

#include "common/Scenarios.h"

#include "analysis/Loops.h"
#include "analysis/StepContext.h"
#include "matchers/Matchers.h"
#include "matchers/TorchApi.h"
#include "recipe/WorkloadRecipe.h"
#include "rules/DeviceNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torchlint {

const RuleInfo CpuTensorThenMovedCheck::Info = {
    "torch-cpu-tensor-then-moved",
    "CpuTensorThenMoved",
    "a tensor is created on the CPU only to be copied to the GPU",
    Level::Warning,
    /*OffersFixIts=*/true,
    "performance,gpu,libtorch",
    "high",
};

namespace {
/// The whole statement `x = x.to(d);`, with its line when it stands alone
/// there, so that the fix leaves no blank line behind.
CharSourceRange statementRange(const Expr *Assignment, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*Assignment);
  const Stmt *Statement = Assignment;
  for (unsigned Steps = 0; Steps < 3; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return {};
    Node = Parents[0];
    if (Node.get<CompoundStmt>())
      break;
    const auto *Cleanups = Node.get<ExprWithCleanups>();
    if (!Cleanups)
      return {};
    Statement = Cleanups;
  }
  if (!Node.get<CompoundStmt>())
    return {};
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Begin = Statement->getBeginLoc();
  SourceLocation End = Lexer::findLocationAfterToken(
      Statement->getEndLoc(), tok::semi, SM, Ctx.getLangOpts(),
      /*SkipTrailingWhitespaceAndNewLine=*/false);
  if (Begin.isInvalid() || End.isInvalid() || Begin.isMacroID() ||
      End.isMacroID())
    return {};
  // The statement, its line break and the next line's indentation: what is
  // left reads as if the line had never been there.
  auto [File, BeginOffset] = SM.getDecomposedLoc(Begin);
  unsigned EndOffset = SM.getFileOffset(End);
  llvm::StringRef Text = SM.getBufferData(File);
  unsigned LineStart = BeginOffset;
  while (LineStart > 0 &&
         (Text[LineStart - 1] == ' ' || Text[LineStart - 1] == '\t'))
    --LineStart;
  unsigned Next = EndOffset;
  while (Next < Text.size() && (Text[Next] == ' ' || Text[Next] == '\t'))
    ++Next;
  // A Windows line break is "\r\n": both go with the line.
  if (Text.substr(Next).starts_with("\r\n"))
    ++Next;
  if ((LineStart == 0 || Text[LineStart - 1] == '\n') && Next < Text.size() &&
      Text[Next] == '\n') {
    ++Next;
    while (Next < Text.size() && (Text[Next] == ' ' || Text[Next] == '\t'))
      ++Next;
    return CharSourceRange::getCharRange(
        Begin, End.getLocWithOffset(Next - EndOffset));
  }
  return CharSourceRange::getCharRange(Begin, End);
}

std::string factoryName(const CallExpr *Factory) {
  return "torch::" + api::torchFunctionName(Factory->getDirectCallee()).str();
}
} // namespace

void CpuTensorThenMovedCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(matchers::tensorMethodCall({"to", "cuda"}).bind("copy"),
                     this);
}

void CpuTensorThenMovedCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("copy");
  DeviceFlow &Flow = context().deviceFlow(Ctx);
  FactSet Destination;
  std::optional<DeviceCopy> Copy = copyToAccelerator(Call, Flow, Destination);
  // x.to(t.device()) where nothing tells where t is: the copy goes wherever
  // t is, a GPU whenever the program runs on one, and the fix costs nothing
  // where t is on the CPU.
  const Expr *Followed = nullptr;
  if (!Copy) {
    Copy = asDeviceCopy(Call);
    Followed = Copy ? followedTensor(*Copy) : nullptr;
    if (!Followed || Flow.index().inTemplatePattern(Call) ||
        !Flow.reachable(Call))
      return;
    Destination = destinationOf(*Copy, Flow);
    if (llvm::any_of(Destination,
                     [](const DeviceFact &F) { return F.isKnown(); }))
      return;
  }
  std::optional<CreatedThenMoved> Made = createdThenMoved(*Copy, Flow);
  if (!Made)
    return;

  StepContext &Steps = context().stepContext(Ctx);
  Repetition Repeated = repetitionOf(Call, Flow, &Steps);
  // In an epoch's loop, around the loop over the batches, or in a function
  // such a loop calls: once per epoch, a cost as small as a copy made once.
  bool PerEpoch =
      Repeated.Loop && Steps.roleOf(Repeated.Loop) == LoopRole::Epoch;
  // Made once, the fill and the copy are start-up work of a few
  // microseconds (a buffer made in a constructor, a warm-up input): not
  // worth a word. Nor, once per epoch, a copy to a device nothing names.
  if (!Repeated || (Followed && PerEpoch))
    return;
  std::string Device =
      Followed ? "where " + quoted(Followed, Ctx, "that tensor") + " is"
               : acceleratorName(Destination);
  std::string Factory = factoryName(Made->Factory);
  FindingBuilder Finding =
      report(Ctx, Made->Factory->getSourceRange(),
             "tensor created on the CPU by '" + Factory +
                 "' only to be copied to " + Device +
                 (PerEpoch ? " once per epoch" : " on every iteration") +
                 runTimeCondition(Destination) +
                 ", which costs a fill on the host and a copy" +
                 (Followed ? " when that is a GPU" : ""));
  Finding.remedy(Followed ? "create it there: give '" + Factory +
                                "' the options of " +
                                quoted(Followed, Ctx, "that tensor")
                          : "create it on " + Device + ": give '" + Factory +
                                "' the device in its options");
  if (PerEpoch || Followed)
    Finding.level(Level::Note);
  noteRunTimeChoices(Finding, Destination);
  const auto *Member = dyn_cast<MemberExpr>(Call->getCallee());
  Finding.note(Member ? SourceRange(Member->getMemberLoc(), Call->getEndLoc())
                      : Call->getSourceRange(),
               "copied to " + Device + " here");
  noteRepeatingCall(Finding, Repeated);
  offerFix(Finding, *Copy, *Made, Flow);

  DeviceFact Created;
  Created.Kind = api::DeviceKind::CPU;
  Created.How = Provenance::Factory;
  Created.Origin = Made->Factory;
  Finding.recipe({{"scenario", scenario::CpuTensorThenMoved},
                  {"tensor", recipe::describeTensor(Created, Ctx)},
                  {"copy", Copy->How == DeviceCopy::Form::Cuda ? "cuda" : "to"},
                  {"in_loop", static_cast<bool>(Repeated)}});
}

void CpuTensorThenMovedCheck::offerFix(FindingBuilder &Finding,
                                       const DeviceCopy &Copy,
                                       const CreatedThenMoved &Made,
                                       DeviceFlow &Flow) {
  ASTContext &Ctx = Flow.astContext();
  std::string DeviceText;
  if (Copy.How == DeviceCopy::Form::Cuda) {
    DeviceText = "torch::kCUDA";
  } else {
    if (!api::isDevice(Copy.Target->getType()) &&
        !api::isDeviceType(Copy.Target->getType()))
      return; // .to(options): what else they set is not the factory's to take
    if (!isUsableAt(Copy.Target, Made.Factory, Flow))
      return;
    DeviceText = api::sourceText(Copy.Target, Ctx);
  }
  std::string DTypeText =
      Copy.DType ? api::sourceText(Copy.DType, Ctx) : std::string();
  if (DeviceText.empty() || (Copy.DType && DTypeText.empty()))
    return;
  for (const DeviceFact &F : Flow.devicesOf(Made.Factory))
    if (F.Literal)
      return; // the factory names the CPU itself; its author chose it

  CharSourceRange Removal;
  if (Made.Reassignment) {
    Removal = statementRange(Made.Reassignment, Ctx);
  } else if (const auto *Member =
                 dyn_cast<MemberExpr>(Copy.Call->getCallee())) {
    // From the end of the moved tensor, so that a `.to(...)` written on a
    // line of its own leaves no empty line behind.
    SourceLocation Start = Lexer::getLocForEndOfToken(
        Copy.Source->getEndLoc(), 0, Ctx.getSourceManager(), Ctx.getLangOpts());
    const SourceManager &SM = Ctx.getSourceManager();
    bool Blank = Start.isValid() && Start.isFileID() &&
                 Member->getOperatorLoc().isFileID() &&
                 SM.isBeforeInTranslationUnit(Start, Member->getOperatorLoc());
    if (Blank) {
      auto [File, From] = SM.getDecomposedLoc(Start);
      unsigned To = SM.getFileOffset(Member->getOperatorLoc());
      Blank = llvm::StringRef(SM.getBufferData(File))
                  .slice(From, To)
                  .find_first_not_of(" \t\r\n") == llvm::StringRef::npos;
    }
    if (!Blank)
      Start = Member->getOperatorLoc();
    Removal = CharSourceRange::getTokenRange(Start, Copy.Call->getEndLoc());
  }
  if (Removal.isInvalid())
    return;
  std::string Setters = ".device(" + DeviceText + ")";
  if (!DTypeText.empty())
    Setters += ".dtype(" + DTypeText + ")";
  if (addFactoryOptions(Finding, Made.Factory, Setters, Ctx))
    Finding.remove(Removal);
}

} // namespace torchlint
