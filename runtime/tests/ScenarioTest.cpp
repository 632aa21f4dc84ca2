#include "GlobalState.h"
#include "Isolation.h"
#include "ModuleBuilder.h"
#include "Replayer.h"
#include "ScenarioRegistry.h"
#include "UserModel.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <gtest/gtest.h>
#include <torch/script.h>

#include <filesystem>
#include <torch/cuda.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <sys/wait.h>
#include <utility>

using namespace torchlint::replay;
namespace scenario = torchlint::scenario;
using nlohmann::json;

namespace {

/// The context of a machine without a usable GPU.
ReplayContext cpuContext() {
  ReplayContext Ctx;
  Ctx.Device = c10::Device("cuda:0");
  Ctx.CudaUnusable = "this test pretends there is no GPU";
  Ctx.Timing.MinRepeats = 5;
  Ctx.Timing.MaxRepeats = 7;
  Ctx.Timing.BudgetSeconds = 1;
  Ctx.Timing.WarmUp = 1;
  return Ctx;
}

bool mentions(const std::vector<std::string> &Lines, const std::string &Part) {
  for (const std::string &Line : Lines)
    if (Line.find(Part) != std::string::npos)
      return true;
  return false;
}

const json Mlp = {
    {"type", "Net"},
    {"submodules",
     {{{"type", "Linear"}, {"args", {784, 64}}, {"name", "fc1"}},
      {{"type", "ReLU"}, {"args", json::array()}},
      {{"type", "Linear"}, {"args", {64, 10}}, {"name", "fc2"}}}}};

} // namespace

TEST(ModuleBuilder, UserModuleSubmodulesInRegistrationOrder) {
  std::vector<std::string> Assumptions;
  BuiltModel M = buildModel(Mlp, nullptr, Assumptions);
  EXPECT_EQ(M.SampleShape, std::vector<int64_t>{784});
  EXPECT_EQ(M.Layers, (std::vector<std::string>{"Linear", "ReLU", "Linear"}));
  EXPECT_TRUE(M.HasMatrixLayers);
  EXPECT_FALSE(M.HasConvolution);
  EXPECT_TRUE(mentions(Assumptions, "forward() of 'Net' is not known"));
  EXPECT_TRUE(mentions(Assumptions, "samples of shape [784] assumed"));
  EXPECT_EQ(M.Model->forward(torch::randn({3, 784})).sizes(),
            (std::vector<int64_t>{3, 10}));
}

TEST(ModuleBuilder, TheInputShapeComesFromTheRecipeWhenKnown) {
  std::vector<std::string> Assumptions;
  json Input = {{"source", "factory"}, {"shape", {8, 784}}, {"dtype", nullptr}};
  BuiltModel M = buildModel(Mlp, Input, Assumptions);
  EXPECT_EQ(M.SampleShape, std::vector<int64_t>{784});
  EXPECT_FALSE(mentions(Assumptions, "input's shape is not known"));
}

TEST(ModuleBuilder, ConvolutionThenLinearGetsAnAdapter) {
  std::vector<std::string> Assumptions;
  json Recipe = {{"type", "Sequential"},
                 {"submodules",
                  {{{"type", "Conv2d"},
                    {"args", {1, 10, 5}},
                    {"options", {{"stride", 2}}}},
                   {{"type", "ReLU"}, {"args", json::array()}},
                   {{"type", "Linear"}, {"args", {320, 10}}}}}};
  BuiltModel M = buildModel(Recipe, nullptr, Assumptions);
  EXPECT_TRUE(M.HasConvolution);
  EXPECT_EQ(M.SampleShape, (std::vector<int64_t>{1, 32, 32}));
  ASSERT_EQ(M.Layers.size(), 4u);
  EXPECT_EQ(M.Layers[2], "adapter");
  EXPECT_TRUE(mentions(Assumptions, "does not fit the input of Linear"));
  EXPECT_EQ(M.Model->forward(torch::randn({2, 1, 32, 32})).sizes(),
            (std::vector<int64_t>{2, 10}));
}

TEST(ModuleBuilder, UnknownArgumentsAndLayersAreStatedDefaults) {
  std::vector<std::string> Assumptions;
  json Recipe = {{"type", "Sequential"},
                 {"submodules",
                  {{{"type", "Linear"}, {"args", {nullptr, nullptr}}},
                   {{"type", "Transformer"}, {"args", json::array()}},
                   {{"type", "LSTM"}, {"args", {512, 32}}}}}};
  BuiltModel M = buildModel(Recipe, nullptr, Assumptions);
  EXPECT_TRUE(
      mentions(Assumptions, "output features of Linear is not a constant"));
  EXPECT_TRUE(
      mentions(Assumptions, "Transformer is not a layer the replay rebuilds"));
  EXPECT_TRUE(mentions(Assumptions, "reshaped to a sequence"));
  torch::Tensor Out = M.Model->forward(torch::randn({2, 512}));
  EXPECT_EQ(Out.size(-1), 32);
}

TEST(ModuleBuilder, NoConstructionGivesTheStatedPerceptron) {
  std::vector<std::string> Assumptions;
  BuiltModel M = buildModel({{"type", nullptr}}, nullptr, Assumptions);
  EXPECT_TRUE(mentions(Assumptions, "two-layer perceptron"));
  EXPECT_EQ(M.Layers.size(), 3u);
}

TEST(ModuleBuilder, EmbeddingTakesIndices) {
  std::vector<std::string> Assumptions;
  json Recipe = {{"type", "Sequential"},
                 {"submodules",
                  {{{"type", "Embedding"}, {"args", {100, 16}}},
                   {{"type", "Linear"}, {"args", {16, 4}}}}}};
  BuiltModel M = buildModel(Recipe, nullptr, Assumptions);
  EXPECT_EQ(M.InputType, c10::ScalarType::Long);
  EXPECT_EQ(M.IndexBound, 100);
}

TEST(ModuleBuilder, ALayerThatCannotBeBuiltIsAnError) {
  std::vector<std::string> Assumptions;
  json Recipe = {{"type", "Linear"}, {"args", {-5, 3}}};
  EXPECT_THROW(buildModel(Recipe, nullptr, Assumptions), std::exception);
}

TEST(Scenarios, EveryRecipeScenarioOfTheAnalyzerHasOne) {
  for (const scenario::Entry &Entry : scenario::All) {
    const Scenario *S = findScenario(std::string(Entry.Id));
    ASSERT_NE(S, nullptr) << Entry.Id;
    EXPECT_EQ(S->id(), Entry.Id);
  }
  EXPECT_EQ(findScenario("no-such-scenario"), nullptr);
  EXPECT_EQ(findScenario(""), nullptr);
}

TEST(Scenarios, EveryScenarioOfTheRuntimeIsInTheSharedList) {
  // A scenario missing from common/Scenarios.def could never be found.
  for (const std::unique_ptr<Scenario> &S : allScenarios())
    EXPECT_EQ(scenario::currentId(S->id()), std::string_view(S->id()))
        << S->id();
  EXPECT_EQ(allScenarios().size(), std::size(scenario::All));
}

TEST(Scenarios, OldIdsInExistingLogsStillFindTheirScenario) {
  // Typed out rather than read from Scenarios.def: these ids are in logs
  // users already have, so dropping one from the list must fail here.
  const std::pair<const char *, const char *> Renamed[] = {
      {"cpu-vs-gpu", scenario::HardcodedCpuDevice},
      {"pinned-copy", scenario::PageableCopy},
      {"create-on-device", scenario::CpuTensorThenMoved},
      {"dataloader-workers", scenario::DataLoaderNoWorkers},
      {"cudnn-benchmark", scenario::CudnnBenchmarkOff},
      {"fp16-loss-scaling", scenario::Fp16WithoutLossScaling},
      {"half-master-weights", scenario::HalfModelTraining}};
  for (const auto &[OldId, Id] : Renamed) {
    EXPECT_EQ(scenario::currentId(OldId), std::string_view(Id)) << OldId;
    const Scenario *S = findScenario(OldId);
    ASSERT_NE(S, nullptr) << OldId;
    EXPECT_STREQ(S->id(), Id);
  }
  for (const scenario::Entry &Entry : scenario::All)
    if (!Entry.OldId.empty())
      EXPECT_EQ(scenario::currentId(Entry.OldId), Entry.Id) << Entry.OldId;

  // The replay annotates such a finding with the current id.
  Environment Env;
  Env.Device = c10::Device("cuda:0");
  Env.CudaUnusable = "libtorch is built without CUDA";
  ReplayItem Item;
  Item.Recipe = {{"scenario", "pinned-copy"}};
  ReplayRow Row = replayItem(Item, Env, ReplayOptions());
  EXPECT_EQ(Row.Scenario, scenario::PageableCopy);
  EXPECT_EQ(replayProperties(Row, Env)["scenario"], scenario::PageableCopy);
}

TEST(Scenarios, GpuScenariosAreNotRunWithoutOne) {
  Environment Env;
  Env.Device = c10::Device("cuda:0");
  Env.CudaUnusable = "libtorch is built without CUDA";
  ReplayOptions Options;
  for (const auto &S : allScenarios()) {
    if (!S->needsCuda())
      continue;
    ReplayItem Item;
    Item.Recipe = {{"scenario", S->id()}};
    ReplayRow Row = replayItem(Item, Env, Options);
    EXPECT_EQ(Row.Outcome.Result, Verdict::NotRun) << S->id();
    EXPECT_EQ(Row.Outcome.Reason,
              "needs a CUDA device: libtorch is built without CUDA");
  }
}

TEST(Scenarios, AnUnknownScenarioOrABrokenRecipeIsNotRunNeverACrash) {
  Environment Env;
  Env.Device = c10::Device("cpu");
  Env.CudaUnusable = "the replay was asked to run on cpu";
  ReplayItem Unknown;
  Unknown.Recipe = {{"scenario", "teleport"}};
  ReplayRow Row = replayItem(Unknown, Env, ReplayOptions());
  EXPECT_EQ(Row.Outcome.Result, Verdict::NotRun);
  EXPECT_EQ(Row.Outcome.Reason, "no scenario replays 'teleport'");

  ReplayItem Broken;
  Broken.Recipe = {{"scenario", scenario::EvalWithoutNoGrad},
                   {"module", {{"type", "Linear"}, {"args", {-5, 3}}}}};
  Row = replayItem(Broken, Env, ReplayOptions());
  EXPECT_EQ(Row.Outcome.Result, Verdict::NotRun);
  EXPECT_EQ(Row.Outcome.Reason.rfind("the replay could not run: ", 0), 0u)
      << Row.Outcome.Reason;
}

TEST(Scenarios, DataLoaderWorkersOverlapSlowSamples) {
  // Samples that wait 2 ms on I/O: workers overlap the waits whatever the
  // machine's load, so the gain is certain.
  ReplayContext Ctx = cpuContext();
  json Recipe = {{"scenario", scenario::DataLoaderNoWorkers},
                 {"dataset", "ImageFolder"},
                 {"batch_size", 8},
                 {"suggested_workers", 4},
                 {"sample_io_us", 2000}};
  ScenarioOutcome O =
      findScenario(scenario::DataLoaderNoWorkers)->replay(Recipe, Ctx);
  EXPECT_EQ(O.Result, Verdict::Confirmed);
  ASSERT_TRUE(O.Ratio.has_value());
  EXPECT_GT(O.Ratio->Low, 1.05);
  EXPECT_TRUE(O.Measurements["same_result"].get<bool>());
  EXPECT_EQ(O.Measurements["workers"], 4);
  EXPECT_EQ(O.RanOn, "cpu");
}

TEST(Scenarios, EvalWithoutNoGradRunsOnTheCpuAndStatesIt) {
  ReplayContext Ctx = cpuContext();
  json Recipe = {{"scenario", scenario::EvalWithoutNoGrad},
                 {"module", Mlp},
                 {"input", {{"shape", {64, 784}}}},
                 {"batches", 4}};
  ScenarioOutcome O =
      findScenario(scenario::EvalWithoutNoGrad)->replay(Recipe, Ctx);
  EXPECT_NE(O.Result, Verdict::NotRun) << O.Reason;
  ASSERT_TRUE(O.Samples.has_value());
  EXPECT_GE(O.Samples->Original.size(), 5u);
  EXPECT_EQ(O.Samples->Original.size(), O.Samples->Fixed.size());
  EXPECT_TRUE(O.Measurements["same_result"].get<bool>());
  EXPECT_TRUE(mentions(Ctx.Assumptions, "run on the CPU"));
  EXPECT_EQ(O.RanOn, "cpu");
}

TEST(Scenarios, AnomalyDetectionTimesTheSameStepsOnAndOff) {
  ReplayContext Ctx = cpuContext();
  json Recipe = {{"scenario", scenario::AnomalyDetectionEnabled},
                 {"how", "guard"},
                 {"module", Mlp},
                 {"input", {{"shape", {64, 784}}}}};
  ScenarioOutcome O =
      findScenario(scenario::AnomalyDetectionEnabled)->replay(Recipe, Ctx);
  EXPECT_NE(O.Result, Verdict::NotRun) << O.Reason;
  ASSERT_TRUE(O.Samples.has_value());
  EXPECT_EQ(O.Samples->Original.size(), O.Samples->Fixed.size());
  // The mode changes how long backward takes, never what it computes.
  EXPECT_TRUE(O.Measurements["same_result"].get<bool>());
  EXPECT_TRUE(mentions(Ctx.Assumptions, "run on the CPU"));
  EXPECT_FALSE(torch::autograd::AnomalyMode::is_enabled());
}

TEST(Scenarios, CollectedLossesHoldGraphsThatGrowWithTheSteps) {
  for (const char *How : {"+=", "push_back"}) {
    ReplayContext Ctx = cpuContext();
    json Recipe = {{"scenario", scenario::LossKeepsGraph},
                   {"how", How},
                   {"module", Mlp},
                   {"input", {{"shape", {16, 784}}}}};
    ScenarioOutcome O =
        findScenario(scenario::LossKeepsGraph)->replay(Recipe, Ctx);
    EXPECT_EQ(O.Result, Verdict::Confirmed) << How << ": " << O.Reason;
    const json &Nodes = O.Measurements["autograd_nodes_held"];
    EXPECT_GT(Nodes["original"][1].get<int64_t>(),
              Nodes["original"][0].get<int64_t>())
        << How;
    EXPECT_EQ(Nodes["fixed"][0], Nodes["fixed"][1]) << How;
    EXPECT_EQ(O.RanOn, "cpu");
    EXPECT_TRUE(mentions(Ctx.Assumptions, "bytes are not measured"));
  }
}

TEST(Scenarios, UnregisteredMembersAreLeftBehindOnTheCpu) {
  // Without a GPU the module is moved to double precision: a layer or a
  // weight left out then fails the forward pass, a buffer is left behind
  // (subtraction promotes it), a dropout stays in training mode.
  const std::map<std::string, Verdict> Expected = {
      {"module", Verdict::CrashConfirmed},
      {"parameter", Verdict::CrashConfirmed},
      {"buffer", Verdict::WrongResultConfirmed},
      {"dropout", Verdict::WrongResultConfirmed}};
  for (const auto &[Kind, Wanted] : Expected) {
    ReplayContext Ctx = cpuContext();
    json Recipe = {{"scenario", scenario::UnregisteredSubmodule},
                   {"member", "layer"},
                   {"kind", Kind}};
    ScenarioOutcome O =
        findScenario(scenario::UnregisteredSubmodule)->replay(Recipe, Ctx);
    EXPECT_EQ(verdictName(O.Result), std::string(verdictName(Wanted)))
        << Kind << ": " << O.Reason;
    EXPECT_EQ(O.RanOn, "cpu");
    EXPECT_TRUE(mentions(Ctx.Assumptions, "double precision")) << Kind;
    if (Kind == "module" || Kind == "parameter") {
      EXPECT_FALSE(
          O.Measurements["weight_changed_by_a_step"]["original"].get<bool>());
      EXPECT_TRUE(
          O.Measurements["weight_changed_by_a_step"]["fixed"].get<bool>());
    }
  }
}

TEST(Scenarios, ModulesThatCannotBeClonedRaiseOnTheCpu) {
  // Each kind raises in clone(), alone and, for a Cloneable that registers
  // in its constructor, as a submodule; a plain module as a submodule is
  // rebuilt with fresh weights instead of copied. The fix, a Cloneable that
  // registers in reset(), clones with every weight.
  for (const char *Kind : {"not-cloneable", "registers-in-constructor"})
    for (bool Submodule : {false, true}) {
      Verdict Wanted = Submodule && std::string(Kind) == "not-cloneable"
                           ? Verdict::WrongResultConfirmed
                           : Verdict::CrashConfirmed;
      ReplayContext Ctx = cpuContext();
      json Recipe = {{"scenario", scenario::DataParallelNotCloneable},
                     {"call", "data_parallel"},
                     {"kind", Kind},
                     {"submodule", Submodule}};
      ScenarioOutcome O =
          findScenario(scenario::DataParallelNotCloneable)->replay(Recipe, Ctx);
      EXPECT_EQ(verdictName(O.Result), std::string(verdictName(Wanted)))
          << Kind << (Submodule ? " (submodule): " : ": ") << O.Reason;
      EXPECT_EQ(O.RanOn, "cpu");
      EXPECT_EQ(O.Measurements["fixed_clone"], "cloned");
      EXPECT_TRUE(mentions(Ctx.Assumptions, "clone(device)")) << Kind;
    }
  ReplayContext Ctx = cpuContext();
  ScenarioOutcome Unknown =
      findScenario(scenario::DataParallelNotCloneable)
          ->replay({{"scenario", scenario::DataParallelNotCloneable}}, Ctx);
  EXPECT_EQ(Unknown.Result, Verdict::CrashConfirmed) << Unknown.Reason;
  EXPECT_TRUE(mentions(Ctx.Assumptions, "kind is not known"));
}

TEST(Scenarios, DataParallelPerStepIsNotRunWithoutTwoGpus) {
  ReplayContext Ctx = cpuContext();
  ScenarioOutcome O = findScenario(scenario::DataParallelPerStep)
                          ->replay({{"scenario", scenario::DataParallelPerStep},
                                    {"devices", "all-visible"}},
                                   Ctx);
  EXPECT_EQ(O.Result, Verdict::NotRun);
  EXPECT_NE(O.Reason.find("two or more GPUs"), std::string::npos) << O.Reason;
  EXPECT_NE(O.Reason.find(Ctx.CudaUnusable), std::string::npos) << O.Reason;
}

TEST(Scenarios, DiscardedResultLeavesTheOperandAsItWas) {
  for (const char *Operation : {"div", "clamp", "contiguous", "permute"}) {
    ReplayContext Ctx = cpuContext();
    ScenarioOutcome O = findScenario(scenario::DiscardedResult)
                            ->replay({{"scenario", scenario::DiscardedResult},
                                      {"operation", Operation},
                                      {"moves", false},
                                      {"module", Mlp}},
                                     Ctx);
    EXPECT_EQ(O.Result, Verdict::WrongResultConfirmed)
        << Operation << ": " << O.Reason;
    EXPECT_EQ(O.RanOn, "cpu");
    EXPECT_TRUE(O.Measurements["original_unchanged"].get<bool>());
    EXPECT_FALSE(mentions(Ctx.Assumptions, "is replayed as")) << Operation;
  }
  ReplayContext Ctx = cpuContext();
  ScenarioOutcome Other = findScenario(scenario::DiscardedResult)
                              ->replay({{"scenario", scenario::DiscardedResult},
                                        {"operation", "log_softmax"},
                                        {"module", Mlp}},
                                       Ctx);
  EXPECT_EQ(Other.Result, Verdict::WrongResultConfirmed) << Other.Reason;
  EXPECT_TRUE(mentions(Ctx.Assumptions, "'log_softmax' is replayed as"));
}

TEST(Scenarios, DiscardedMoveNeedsAGpu) {
  ReplayContext Ctx = cpuContext();
  ScenarioOutcome O = findScenario(scenario::DiscardedResult)
                          ->replay({{"scenario", scenario::DiscardedResult},
                                    {"operation", "to"},
                                    {"moves", true},
                                    {"module", Mlp}},
                                   Ctx);
  EXPECT_EQ(O.Result, Verdict::NotRun);
  EXPECT_NE(O.Reason.find(Ctx.CudaUnusable), std::string::npos) << O.Reason;
}

TEST(Scenarios, ModuleNeverMovedTimesTheStepOnBothDevices) {
  // The claim needs a GPU; the two variants run anywhere and must agree,
  // which a CPU run checks.
  for (const char *Work : {"training", "inference"}) {
    ReplayContext Ctx = cpuContext();
    Ctx.Device = c10::Device("cpu");
    ScenarioOutcome O = findScenario(scenario::ModuleNeverMoved)
                            ->replay({{"scenario", scenario::ModuleNeverMoved},
                                      {"module", Mlp},
                                      {"inputs_on", "cpu"},
                                      {"work", Work}},
                                     Ctx);
    EXPECT_NE(O.Result, Verdict::NotRun) << Work << ": " << O.Reason;
    EXPECT_NE(O.Result, Verdict::WrongResultConfirmed) << O.Reason;
    ASSERT_TRUE(O.Samples.has_value()) << Work;
    EXPECT_EQ(O.RanOn, "cpu");
    EXPECT_TRUE(mentions(Ctx.Assumptions,
                         std::string(Work) == "training" ? "training step"
                                                         : "forward pass"))
        << Work;
  }
}

TEST(Scenarios, ModuleNeverMovedWithInputsOnTheDeviceFailsOnlyOnAGpu) {
  // On the CPU the input and the module agree: nothing fails, and the
  // replay says so rather than confirm.
  ReplayContext Ctx = cpuContext();
  Ctx.Device = c10::Device("cpu");
  ScenarioOutcome O = findScenario(scenario::ModuleNeverMoved)
                          ->replay({{"scenario", scenario::ModuleNeverMoved},
                                    {"module", Mlp},
                                    {"inputs_on", "gpu"}},
                                   Ctx);
  EXPECT_EQ(O.Result, Verdict::NotRun);
  EXPECT_NE(O.Reason.find("ran without error"), std::string::npos)
      << O.Reason;
}

TEST(Scenarios, WidenBeforeCopyMovesTheSameValuesBothWays) {
  // The claim needs a GPU, where the bus is; both orders run anywhere and
  // must give the same values, which a CPU run checks.
  ReplayContext Ctx = cpuContext();
  Ctx.Device = c10::Device("cpu");
  json Recipe = {{"scenario", scenario::WidenBeforeCopy},
                 {"from", "uint8"},
                 {"to", "float32"},
                 {"shape", {48, 64, 3}}};
  ScenarioOutcome O =
      findScenario(scenario::WidenBeforeCopy)->replay(Recipe, Ctx);
  EXPECT_NE(O.Result, Verdict::NotRun) << O.Reason;
  EXPECT_NE(O.Result, Verdict::WrongResultConfirmed) << O.Reason;
  ASSERT_TRUE(O.Samples.has_value());
  EXPECT_EQ(O.Samples->Original.size(), O.Samples->Fixed.size());
  EXPECT_EQ(O.RanOn, "cpu");
  EXPECT_FALSE(mentions(Ctx.Assumptions, "stands in"));
  EXPECT_TRUE(mentions(Ctx.Assumptions, "the model's work"));

  ReplayContext NoShape = cpuContext();
  NoShape.Device = c10::Device("cpu");
  json Bare = {{"scenario", scenario::WidenBeforeCopy}, {"from", "int16"}};
  ScenarioOutcome Framed =
      findScenario(scenario::WidenBeforeCopy)->replay(Bare, NoShape);
  EXPECT_NE(Framed.Result, Verdict::NotRun) << Framed.Reason;
  EXPECT_TRUE(mentions(NoShape.Assumptions, "720x1280 RGB frame stands in"));
}

TEST(Scenarios, WidenBeforeCopyRefusesANarrowingRecipe) {
  ReplayContext Ctx = cpuContext();
  Ctx.Device = c10::Device("cpu");
  ScenarioOutcome O = findScenario(scenario::WidenBeforeCopy)
                          ->replay({{"scenario", scenario::WidenBeforeCopy},
                                    {"from", "float32"},
                                    {"to", "float16"}},
                                   Ctx);
  EXPECT_EQ(O.Result, Verdict::NotRun);
  EXPECT_NE(O.Reason.find("does not widen"), std::string::npos) << O.Reason;
}

TEST(Scenarios, UnsynchronizedTimingTimesBothIntervals) {
  // Its claim needs a GPU, where work is queued; the measurement itself runs
  // anywhere, and on the CPU, where work is synchronous, the two intervals
  // time the same thing.
  ReplayContext Ctx = cpuContext();
  Ctx.Device = c10::Device("cpu");
  json Recipe = {{"scenario", scenario::UnsynchronizedTiming},
                 {"work", "backward"},
                 {"module", Mlp},
                 {"input", {{"shape", {64, 784}}}}};
  ScenarioOutcome O =
      findScenario(scenario::UnsynchronizedTiming)->replay(Recipe, Ctx);
  EXPECT_NE(O.Result, Verdict::NotRun) << O.Reason;
  ASSERT_TRUE(O.Samples.has_value());
  EXPECT_GE(O.Samples->Original.size(), Ctx.Timing.MinRepeats);
  EXPECT_EQ(O.Samples->Original.size(), O.Samples->Fixed.size());
  EXPECT_GT(O.Measurements["true_seconds_median"].get<double>(), 0);
  EXPECT_GT(O.Measurements["reported_seconds_median"].get<double>(), 0);
  ASSERT_TRUE(O.Ratio.has_value());
  EXPECT_TRUE(mentions(Ctx.Assumptions, "forward and backward pass"));
  EXPECT_EQ(O.RanOn, "cpu");
}

/// A TorchScript model over inputs of 16 features, saved where the test
/// says: what a user's exported model is to the replay.
std::string saveScriptedModel(const std::string &Path) {
  torch::jit::Module Module("UserModel");
  Module.register_parameter("w", torch::randn({16, 4}), false);
  Module.define(R"(
def forward(self, x):
    return x.flatten(1).matmul(self.w)
)");
  Module.save(Path);
  return Path;
}

TEST(Scenarios, ModelNamedByTheUserIsLoadedWithItsInputShape) {
  ReplayContext Ctx = cpuContext();
  Ctx.Device = c10::Device("cpu");
  std::string Path = saveScriptedModel(
      (std::filesystem::temp_directory_path() / "torchlint-user-model.pt")
          .string());
  Ctx.ModelFile = Path;
  // The recipe's input is a 1x4x4 frame: 16 features once flattened.
  json Recipe = {{"scenario", scenario::SetupInLoop},
                 {"setup", "load"},
                 {"input", {{"shape", {1, 4, 4}}, {"dtype", "float"}}}};
  ScenarioOutcome O = findScenario(scenario::SetupInLoop)->replay(Recipe, Ctx);
  EXPECT_NE(O.Result, Verdict::NotRun) << O.Reason;
  EXPECT_TRUE(mentions(Ctx.Assumptions, "the model of --model " + Path +
                                            ", run on a random float input "
                                            "of shape [1,4,4] (from the "
                                            "recipe)"));
  EXPECT_FALSE(mentions(Ctx.Assumptions, "stands in"));

  // Without a shape in the recipe, --input-shape gives it; without either,
  // the model is not guessed at.
  ReplayContext NoShape = cpuContext();
  NoShape.Device = c10::Device("cpu");
  NoShape.ModelFile = Path;
  json Bare = {{"scenario", scenario::SetupInLoop}, {"setup", "load"}};
  ScenarioOutcome Refused =
      findScenario(scenario::SetupInLoop)->replay(Bare, NoShape);
  EXPECT_EQ(Refused.Result, Verdict::NotRun);
  EXPECT_EQ(Refused.Reason, "the recipe does not say the model's input shape; "
                            "give --input-shape (for example 1,3,224,224)");
  NoShape.ModelInputShape = {2, 16};
  ScenarioOutcome Given =
      findScenario(scenario::SetupInLoop)->replay(Bare, NoShape);
  EXPECT_NE(Given.Result, Verdict::NotRun) << Given.Reason;

  // The timing scenario runs the same model's forward pass.
  ReplayContext Timed = cpuContext();
  Timed.Device = c10::Device("cpu");
  Timed.ModelFile = Path;
  json TimingRecipe = {{"scenario", scenario::UnsynchronizedTiming},
                       {"work", "forward"},
                       {"input", {{"shape", {8, 16}}}}};
  ScenarioOutcome TimedOutcome =
      findScenario(scenario::UnsynchronizedTiming)->replay(TimingRecipe, Timed);
  EXPECT_NE(TimedOutcome.Result, Verdict::NotRun) << TimedOutcome.Reason;
  EXPECT_TRUE(mentions(Timed.Assumptions, "one forward pass of that model"));

  // Inference without a guard runs it too, its result compared.
  ReplayContext Evaluated = cpuContext();
  Evaluated.ModelFile = Path;
  // (A TorchScript module's recipe names no layers the replay could build.)
  json EvalRecipe = {{"scenario", scenario::EvalWithoutNoGrad},
                     {"batches", 4},
                     {"module", {{"type", "Module"}, {"args", nullptr}}},
                     {"input", {{"shape", {8, 16}}}}};
  ScenarioOutcome EvalOutcome =
      findScenario(scenario::EvalWithoutNoGrad)->replay(EvalRecipe, Evaluated);
  EXPECT_NE(EvalOutcome.Result, Verdict::NotRun) << EvalOutcome.Reason;
  EXPECT_TRUE(EvalOutcome.Measurements["same_result"].get<bool>());
  EXPECT_TRUE(mentions(Evaluated.Assumptions, "the model of --model " + Path));
  std::filesystem::remove(Path);

  // A file that is no TorchScript model is named, not a crash.
  ReplayContext Broken = cpuContext();
  Broken.Device = c10::Device("cpu");
  Broken.ModelFile = "/etc/hostname";
  Broken.ModelInputShape = {1, 16};
  ScenarioOutcome NotLoaded =
      findScenario(scenario::SetupInLoop)->replay(Bare, Broken);
  EXPECT_EQ(NotLoaded.Result, Verdict::NotRun);
  EXPECT_EQ(NotLoaded.Reason.rfind("--model /etc/hostname does not load: ", 0),
            0u)
      << NotLoaded.Reason;
}

TEST(Scenarios, AModelsFirstTensorIsItsResult) {
  torch::Tensor Boxes = torch::ones({2, 4});
  EXPECT_TRUE(firstTensorOf(c10::IValue(Boxes)).equal(Boxes));
  c10::IValue Detections = c10::ivalue::Tuple::create(
      {c10::IValue(c10::List<torch::Tensor>({Boxes})),
       c10::IValue(torch::zeros({2}))});
  EXPECT_TRUE(firstTensorOf(Detections).equal(Boxes));
  EXPECT_THROW(firstTensorOf(c10::IValue(3)), std::runtime_error);
}

TEST(Scenarios, InputShapesAreParsedStrictly) {
  EXPECT_EQ(parseShape("1,3,224,224"), (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(parseShape("8x16"), (std::vector<int64_t>{8, 16}));
  for (const char *Bad :
       {"", "1,,2", "1,-2", "0", "a,b", "1,2,", "99999999999"})
    EXPECT_EQ(parseShape(Bad), std::nullopt) << Bad;
}

TEST(Scenarios, Fp16FlushCountsWhatRoundsToZero) {
  // 1e-9 and 1e-10 are below fp16's smallest subnormal (about 6e-8); scaled
  // by 2^16 they are not.
  Fp16Flush Count = fp16Flush(
      {torch::tensor({1e-9, 1e-3, 0.0}), torch::tensor({-1e-10})}, 65536.0);
  EXPECT_EQ(Count.Nonzero, 3);
  EXPECT_EQ(Count.Flushed, 2);
  EXPECT_EQ(Count.FlushedScaled, 0);
}

TEST(Scenarios, Fp16WithoutLossScalingRunsOnTheCpu) {
  ReplayContext Ctx = cpuContext();
  json Recipe = {{"scenario", scenario::Fp16WithoutLossScaling},
                 {"module", Mlp}};
  ScenarioOutcome O =
      findScenario(scenario::Fp16WithoutLossScaling)->replay(Recipe, Ctx);
  ASSERT_NE(O.Result, Verdict::NotRun) << O.Reason;
  EXPECT_GT(O.Measurements["nonzero_gradients"].get<int64_t>(), 0);
  EXPECT_LE(O.Measurements["flushed_fraction_scaled"].get<double>(),
            O.Measurements["flushed_fraction"].get<double>());
  EXPECT_EQ(O.RanOn, "cpu");
}

TEST(Scenarios, LostUpdatesCountWhatFloat16WeightsDrop) {
  // 1 + 1e-4 is 1 in fp16 (spacing 2^-10 above 1), not in fp32; 1e-2 is
  // kept by both; a zero update is not counted.
  LostUpdates Count = lostUpdates({torch::tensor({1.0, 1.0, 1.0})},
                                  {torch::tensor({1e-4, 1e-2, 0.0})});
  EXPECT_EQ(Count.Nonzero, 2);
  EXPECT_EQ(Count.LostInFp16, 1);
  EXPECT_EQ(Count.LostInFp32, 0);
}

TEST(Scenarios, HalfModelTrainingRunsOnTheCpu) {
  ReplayContext Ctx = cpuContext();
  json Recipe = {{"scenario", scenario::HalfModelTraining},
                 {"module", Mlp},
                 {"optimizer", "SGD"},
                 {"learning_rate", 1e-4}};
  ScenarioOutcome O =
      findScenario(scenario::HalfModelTraining)->replay(Recipe, Ctx);
  ASSERT_NE(O.Result, Verdict::NotRun) << O.Reason;
  EXPECT_GT(O.Measurements["updated_weights"].get<int64_t>(), 0);
  EXPECT_GE(O.Measurements["lost_fraction_fp16"].get<double>(),
            O.Measurements["lost_fraction_fp32"].get<double>());
  EXPECT_EQ(O.RanOn, "cpu");
}

TEST(Scenarios, SetupInLoopRunsEachKindOfSetupOnTheCpu) {
  for (const char *Setup : {"load", "module", "optimizer"}) {
    ReplayContext Ctx = cpuContext();
    json Recipe = {{"scenario", scenario::SetupInLoop},
                   {"setup", Setup},
                   {"module", Mlp},
                   {"input", {{"shape", {16, 784}}}}};
    ScenarioOutcome O =
        findScenario(scenario::SetupInLoop)->replay(Recipe, Ctx);
    ASSERT_NE(O.Result, Verdict::NotRun) << Setup << ": " << O.Reason;
    ASSERT_TRUE(O.Samples.has_value()) << Setup;
    EXPECT_GE(O.Samples->Original.size(), 5u) << Setup;
    EXPECT_EQ(O.RanOn, "cpu") << Setup;
    if (std::string(Setup) == "load")
      EXPECT_TRUE(mentions(Ctx.Assumptions, "stands in for it"));
    if (std::string(Setup) == "optimizer")
      EXPECT_FALSE(O.Measurements["weights_agree_after_training"].get<bool>());
    else
      EXPECT_TRUE(O.Measurements["same_result"].get<bool>()) << Setup;
  }
  ReplayContext Ctx = cpuContext();
  EXPECT_EQ(findScenario(scenario::SetupInLoop)
                ->replay({{"scenario", scenario::SetupInLoop}}, Ctx)
                .Result,
            Verdict::NotRun);
}

TEST(Scenarios, NullRecipeFieldsMeanUnknownNotACrash) {
  Environment Env;
  Env.Device = c10::Device("cpu");
  Env.CudaUnusable = "the replay was asked to run on cpu";
  ReplayItem NoScenario;
  NoScenario.Recipe = {{"scenario", nullptr}};
  EXPECT_EQ(replayItem(NoScenario, Env, ReplayOptions()).Outcome.Reason,
            "the recipe names no scenario");

  ReplayContext Ctx = cpuContext();
  json Recipe = {{"scenario", scenario::DataLoaderNoWorkers},
                 {"dataset", nullptr},
                 {"batch_size", nullptr},
                 {"suggested_workers", nullptr},
                 {"sample_io_us", 500}};
  ScenarioOutcome O =
      findScenario(scenario::DataLoaderNoWorkers)->replay(Recipe, Ctx);
  EXPECT_NE(O.Result, Verdict::NotRun) << O.Reason;
  EXPECT_TRUE(mentions(Ctx.Assumptions, "the batch size is not known"));
}

TEST(Scenarios, AFixThatComputesSomethingElseGetsNoSpeedVerdict) {
  ReplayContext Ctx = cpuContext();
  ScenarioOutcome O = compareSpeed(
      Ctx, c10::Device("cpu"), [] { return torch::ones({4}); },
      [] { return torch::zeros({4}); }, toleranceFor(c10::ScalarType::Float));
  EXPECT_EQ(O.Result, Verdict::NotRun);
  EXPECT_FALSE(O.Measurements["same_result"].get<bool>());
  EXPECT_EQ(O.Measurements["max_abs_difference"].get<double>(), 1.0);
  EXPECT_NE(O.Reason.find("differs"), std::string::npos);
}

TEST(Scenarios, GlobalSwitchesAreRestoredEvenWhenAReplayThrows) {
  bool Benchmark = at::globalContext().benchmarkCuDNN();
  AutocastState Cpu = autocastState(c10::DeviceType::CPU);
  try {
    GlobalStateGuard Guard;
    at::globalContext().setBenchmarkCuDNN(!Benchmark);
    setAutocast(c10::DeviceType::CPU, !Cpu.Enabled, c10::ScalarType::BFloat16);
    throw std::runtime_error("out of memory");
  } catch (const std::runtime_error &) {
  }
  EXPECT_EQ(at::globalContext().benchmarkCuDNN(), Benchmark);
  EXPECT_EQ(autocastState(c10::DeviceType::CPU).Enabled, Cpu.Enabled);
  EXPECT_EQ(autocastState(c10::DeviceType::CPU).Type, Cpu.Type);
}

namespace {

struct CliRun {
  int Status;
  std::string Output;
};

CliRun run(const std::string &Arguments) {
  std::string Command =
      std::string(TORCHLINT_REPLAY_BINARY) + " " + Arguments + " 2>&1";
  FILE *Pipe = popen(Command.c_str(), "r");
  std::string Output;
  std::array<char, 4096> Buffer;
  while (size_t N = fread(Buffer.data(), 1, Buffer.size(), Pipe))
    Output.append(Buffer.data(), N);
  int Status = pclose(Pipe);
  return {WIFEXITED(Status) ? WEXITSTATUS(Status) : -1, Output};
}

const std::string SarifLog = TORCHLINT_RUNTIME_TEST_DATA "/findings.sarif";

} // namespace

TEST(Isolation, AVariantRunsInAProcessOfItsOwn) {
  ReplayContext Ctx = cpuContext();
  Ctx.Device = c10::Device("cpu");
  Ctx.Executable = TORCHLINT_REPLAY_BINARY;
  json Recipe = {{"scenario", scenario::CudnnBenchmarkOff},
                 {"module",
                  {{"type", "Sequential"},
                   {"submodules",
                    {{{"type", "Conv2d"}, {"args", {3, 8, 3}}},
                     {{"type", "ReLU"}, {"args", json::array()}}}}}},
                 {"input", {{"shape", {4, 3, 16, 16}}}}};
  ChildSamples Original =
      timeInChild(Ctx, scenario::CudnnBenchmarkOff, false, Recipe);
  ChildSamples Fixed =
      timeInChild(Ctx, scenario::CudnnBenchmarkOff, true, Recipe);
  EXPECT_GE(Original.Seconds.size(), Ctx.Timing.MinRepeats);
  EXPECT_LE(Original.Seconds.size(), Ctx.Timing.MaxRepeats);
  EXPECT_EQ(Original.Clock, "steady-clock");
  // The first training step's loss, the same in both processes.
  EXPECT_EQ(Original.Result.dim(), 0);
  EXPECT_DOUBLE_EQ(Original.Result.item<double>(), Fixed.Result.item<double>());

  try {
    timeInChild(Ctx, scenario::SyncInLoop, false, Recipe);
    FAIL() << "a scenario without isolated variants ran in a child";
  } catch (const std::runtime_error &E) {
    EXPECT_NE(std::string(E.what()).find("does not run its variants apart"),
              std::string::npos)
        << E.what();
  }
}

TEST(ReplayCli, ReplaysTheSelectedFindingsIntoACopyOfTheLog) {
  if (torch::cuda::is_available())
    GTEST_SKIP() << "checks the CPU-only diagnosis";
  std::string Out = ::testing::TempDir() + "/replayed.sarif";
  CliRun R =
      run(SarifLog + " -o " + Out +
          " --checks='-*,torch-unchecked-cuda,torch-cpu-tensor-then-moved'"
          " --repeats 5 --budget-seconds 1");
  ASSERT_EQ(R.Status, 0) << R.Output;
  EXPECT_NE(R.Output.find("CPU-only build"), std::string::npos) << R.Output;
  EXPECT_NE(R.Output.find("GPU scenarios are not run"), std::string::npos);
  std::ifstream In(Out);
  json Log = json::parse(In);
  size_t Replayed = 0;
  for (const json &Result : Log["runs"][0]["results"]) {
    bool Has = Result.contains("properties") &&
               Result["properties"].contains("replay");
    std::string Rule = Result["ruleId"];
    if (Rule != "torch-cpu-tensor-then-moved") {
      EXPECT_FALSE(Has) << Rule;
      continue;
    }
    ASSERT_TRUE(Has);
    ++Replayed;
    const json &Replay = Result["properties"]["replay"];
    // The log names the scenario by its old id, create-on-device.
    EXPECT_EQ(Replay["scenario"], scenario::CpuTensorThenMoved);
    EXPECT_EQ(Replay["verdict"], "not-run");
    EXPECT_EQ(Replay["environment"]["libtorch"].get<std::string>().substr(0, 1),
              std::string(TORCH_VERSION).substr(0, 1));
    EXPECT_NE(Result["message"]["text"].get<std::string>().find(
                  "[replay: not-run, needs a CUDA device"),
              std::string::npos);
  }
  EXPECT_GT(Replayed, 0u);
  std::remove(Out.c_str());
}

TEST(ReplayCli, BadUseIsOneClearErrorAndTheInputIsNeverOverwritten) {
  CliRun Same = run(SarifLog + " -o " + SarifLog);
  EXPECT_EQ(Same.Status, 2);
  EXPECT_NE(Same.Output.find("is the log being read"), std::string::npos);

  CliRun Missing = run("/nonexistent.sarif");
  EXPECT_EQ(Missing.Status, 2);
  EXPECT_NE(Missing.Output.find("/nonexistent.sarif: cannot be read"),
            std::string::npos);

  CliRun Device = run(SarifLog + " --device warp:9");
  EXPECT_EQ(Device.Status, 2);
  EXPECT_NE(Device.Output.find("'warp:9' is not a device"), std::string::npos);

  CliRun Option = run("--repeats zero " + SarifLog);
  EXPECT_EQ(Option.Status, 2);
  EXPECT_NE(Option.Output.find("--repeats needs a positive number"),
            std::string::npos);

  CliRun Model = run("--model /nonexistent/model.pt " + SarifLog);
  EXPECT_EQ(Model.Status, 2);
  EXPECT_NE(Model.Output.find("--model: cannot read '/nonexistent/model.pt'"),
            std::string::npos)
      << Model.Output;
  CliRun Shape = run("--input-shape 1,-3 " + SarifLog);
  EXPECT_EQ(Shape.Status, 2);
  EXPECT_NE(Shape.Output.find("--input-shape needs positive sizes separated "
                              "by commas, not '1,-3'"),
            std::string::npos)
      << Shape.Output;
}

TEST(ReplayCli, NonsenseRecipesAreNotRunAndTheRestIsStillReplayed) {
  auto Result = [](const char *Rule, int Line, json Recipe) {
    return json{{"ruleId", Rule},
                {"message", {{"text", "finding"}}},
                {"locations",
                 {{{"physicalLocation",
                    {{"artifactLocation", {{"uri", "train.cpp"}}},
                     {"region", {{"startLine", Line}}}}}}}},
                {"properties", {{"replayRecipe", Recipe}}}};
  };
  json Eval = {{"scenario", scenario::EvalWithoutNoGrad},
               {"module", {{"type", "Linear"}, {"args", {16, 4}}}},
               {"input", {{"shape", {8, 16}}}},
               {"batches", 2}};
  json Negative = Eval;
  Negative["input"]["shape"] = {-3, 16};
  json Huge = Eval;
  Huge["input"]["shape"] = {1000000, 1000000};
  json Log = {{"version", "2.1.0"},
              {"runs",
               {{{"tool", {{"driver", {{"name", "torchlint"}}}}},
                 {"results",
                  {Result("torch-eval-without-no-grad", 1, Negative),
                   Result("torch-eval-without-no-grad", 2, Huge),
                   Result("torch-eval-without-no-grad", 3, Eval),
                   Result("torch-eval-without-no-grad", 4, "nonsense")}}}}}};
  std::string In = ::testing::TempDir() + "/nonsense.sarif";
  std::string Out = ::testing::TempDir() + "/nonsense.replayed.sarif";
  std::ofstream(In) << Log.dump();
  CliRun R = run(In + " -o " + Out + " --repeats 5 --budget-seconds 1");
  ASSERT_EQ(R.Status, 0) << R.Output;
  json Written = json::parse(std::ifstream(Out));
  const json &Results = Written["runs"][0]["results"];
  ASSERT_EQ(Results.size(), 4u);
  const json &First = Results[0]["properties"]["replay"];
  EXPECT_EQ(First["verdict"], "not-run");
  EXPECT_NE(First["reason"].get<std::string>().find("is not a tensor shape"),
            std::string::npos)
      << First["reason"];
  const json &Second = Results[1]["properties"]["replay"];
  EXPECT_EQ(Second["verdict"], "not-run");
  EXPECT_NE(Second["reason"].get<std::string>().find("billion elements"),
            std::string::npos)
      << Second["reason"];
  EXPECT_NE(Results[2]["properties"]["replay"]["verdict"], "not-run");
  // A recipe that is not even an object is no replay item.
  EXPECT_FALSE(Results[3]["properties"].contains("replay"));
  std::remove(In.c_str());
  std::remove(Out.c_str());
}
