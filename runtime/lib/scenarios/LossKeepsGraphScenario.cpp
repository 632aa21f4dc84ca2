//===--- LossKeepsGraphScenario.cpp - Losses collected with their graphs --===//
//
// The claim: a tensor that collects each step's loss without detach() keeps
// every step's autograd graph alive, so what it holds grows with the number
// of steps, while the detached sum holds a constant amount. Measured as the
// autograd nodes reachable from the accumulator (any device) and as the
// allocator's peak (a GPU), after N and after 2N steps. Runs on the CPU too.
//
//===----------------------------------------------------------------------===//

#include "PeakMemory.h"
#include "ScenarioRegistry.h"
#include "Workload.h"
#include "common/Scenarios.h"

#include <torch/csrc/autograd/function.h>

#include <unordered_set>

namespace torchlint::replay {
namespace {

constexpr int Steps = 8;

/// Autograd nodes reachable from the graphs of Tensors.
int64_t reachableNodes(const std::vector<torch::Tensor> &Tensors) {
  std::unordered_set<const torch::autograd::Node *> Seen;
  std::vector<std::shared_ptr<torch::autograd::Node>> Work;
  for (const torch::Tensor &T : Tensors)
    if (T.defined() && T.grad_fn())
      Work.push_back(T.grad_fn());
  while (!Work.empty()) {
    std::shared_ptr<torch::autograd::Node> Node = std::move(Work.back());
    Work.pop_back();
    if (!Node || !Seen.insert(Node.get()).second)
      continue;
    for (const torch::autograd::Edge &Next : Node->next_edges())
      if (Next.function)
        Work.push_back(Next.function);
  }
  return static_cast<int64_t>(Seen.size());
}

class LossKeepsGraphScenario : public Scenario {
public:
  const char *id() const override { return scenario::LossKeepsGraph; }
  bool needsCuda() const override { return false; }

  ScenarioOutcome replay(const nlohmann::json &Recipe,
                         ReplayContext &Ctx) const override {
    c10::Device Device =
        Ctx.deviceOrCpu("the graphs held are counted, bytes are not measured");
    bool Collects = recipeString(Recipe, "how") == "push_back";
    Workload W = Workload::fromRecipe(Recipe, Ctx);
    // Trains Count steps from the same weights, collecting each loss as the
    // program does (Detach false) or detached; returns what is collected.
    auto Train = [&](int Count, bool Detach) {
      Trainer T = W.trainer(Device);
      std::vector<torch::Tensor> Collected;
      torch::Tensor Total = torch::zeros({}, T.Input.options());
      for (int Step = 0; Step < Count; ++Step) {
        T.Optimizer->zero_grad();
        torch::Tensor Loss =
            torch::mse_loss(T.Model->forward(T.Input), T.Target);
        Loss.backward();
        T.Optimizer->step();
        torch::Tensor Kept = Detach ? Loss.detach() : Loss;
        if (Collects)
          Collected.push_back(Kept);
        else
          Total = Total + Kept;
      }
      if (!Collects)
        Collected.push_back(Total);
      return Collected;
    };

    ScenarioOutcome Outcome;
    Outcome.RanOn = Device.str();
    nlohmann::json Nodes, Bytes;
    for (bool Detach : {false, true}) {
      const char *Variant = Detach ? "fixed" : "original";
      for (int Count : {Steps, 2 * Steps}) {
        Nodes[Variant].push_back(reachableNodes(Train(Count, Detach)));
        std::vector<torch::Tensor> Held;
        std::optional<int64_t> Peak =
            peakAllocatedBytes(Device, [&] { Held = Train(Count, Detach); });
        if (Peak)
          Bytes[Variant].push_back(*Peak);
      }
    }
    Outcome.Measurements["autograd_nodes_held"] = Nodes;
    Outcome.Measurements["steps"] = {Steps, 2 * Steps};
    Outcome.Measurements["peak_allocated_bytes"] =
        Bytes.is_null()
            ? nlohmann::json("not measured: needs a CUDA device and a CUDA "
                             "build of libtorch")
            : Bytes;
    bool OriginalGrows = Nodes["original"][1] > Nodes["original"][0];
    bool FixedConstant = Nodes["fixed"][1] == Nodes["fixed"][0];
    if (OriginalGrows && FixedConstant) {
      Outcome.Result = Verdict::Confirmed;
      Outcome.Reason = "the original holds more autograd nodes the more steps "
                       "it runs; the fixed variant holds a constant number";
    } else {
      Outcome.Result = Verdict::NoGain;
      Outcome.Reason = "the graphs held did not grow with the steps here";
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<Scenario> makeLossKeepsGraphScenario() {
  return std::make_unique<LossKeepsGraphScenario>();
}

} // namespace torchlint::replay
