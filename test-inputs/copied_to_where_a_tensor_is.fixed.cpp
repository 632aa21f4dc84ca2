// A tensor made on the host and copied to wherever another tensor is
// (`.to(t.device())`, `.to(t)`, `.to(t.options())`) costs a fill and a copy
// each time `t` is on a GPU, and making it there costs nothing where `t` is
// on the CPU. Where the program does not say where `t` is, the copies made
// on every iteration are noted; one made once is not worth a word.
#include <torch/torch.h>

#include <vector>

struct HeadImpl : torch::nn::Module {
  HeadImpl() { conv = register_module("conv", torch::nn::Conv2d(8, 4, 1)); }

  std::vector<torch::Tensor> forward(const std::vector<torch::Tensor> &levels) {
    std::vector<torch::Tensor> ids;
    for (size_t i = 0; i < levels.size(); ++i) {
      torch::Tensor score = conv->forward(levels[i]);
      ids.push_back(torch::full({score.size(0)}, static_cast<int64_t>(i), // expect: torch-cpu-tensor-then-moved [note] "only to be copied to where 'score' is on every iteration, which costs a fill on the host and a copy when that is a GPU"
                                torch::TensorOptions(torch::kInt64).device(score.device())));
      // Correct: made where the score is.
      ids.push_back(torch::zeros({score.size(0)}, score.options()));
    }
    return ids;
  }
  torch::nn::Conv2d conv{nullptr};
};
TORCH_MODULE(Head);

// Made once per call, and nothing says the call repeats: not reported.
torch::Tensor label_grid(const torch::Tensor &scores, int64_t classes) {
  return torch::arange(classes).to(scores).view({1, -1});
}

std::vector<torch::Tensor> grids(const std::vector<torch::Tensor> &maps) {
  std::vector<torch::Tensor> out;
  for (const torch::Tensor &map : maps) {
    // A view and a repeat of a tensor just made are made on the device too.
    out.push_back(torch::linspace(0, 1, 8).repeat({4, 1}).view({32}).to(map)); // expect: torch-cpu-tensor-then-moved [note] "tensor created on the CPU by 'torch::linspace' only to be copied to where 'map' is"
    // Correct: the host copy of a map is the work itself.
    out.push_back(torch::ones({8}).to(map.cpu()));
  }
  return out;
}

// The functions above are a library's: their callers, and the devices they
// pass, are elsewhere.
int main() {}
