// torch-discarded-result: a tensor operation that returns a new tensor,
// written as a statement of its own. A tensor's to(), unlike a module's,
// leaves the tensor where it was; a clamp as a statement clamps nothing; an
// in-place operation on the copy such an operation returns changes the copy.
// In-place operations (also on views), a module's to(), module and optimizer
// calls, and results discarded on purpose are fine.
#include <torch/torch.h>

#include <tuple>
#include <vector>

struct Net : torch::nn::Module {
  Net() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};

torch::Tensor move_without_assigning(torch::Tensor x, torch::Device device) {
  x = x.to(device); // expect: torch-discarded-result [error] "the copy that 'to' returns on the new device is discarded, so 'x' stays on its device" // expect-note: "unlike a module's, returns a new tensor and leaves its operand where it is: assign the result, 'x = x.to(device)'"
  return x;
}

torch::Tensor cuda_without_assigning(torch::Tensor x) {
  x = x.cuda(); // expect: torch-discarded-result [error] "the copy that 'cuda' returns", torch-unchecked-cuda
  return x;
}

torch::Tensor cpu_without_assigning(torch::Tensor x) {
  x = x.cpu(); // expect: torch-discarded-result [error]
  return x;
}

torch::Tensor convert_then_move(torch::Tensor image, torch::Device device) {
  image = image.permute({2, 0, 1}).to(device); // expect: torch-discarded-result [error] "'image' stays on its device"
  return image;
}

torch::Tensor convert_without_assigning(torch::Tensor x) {
  x = x.to(torch::kHalf); // expect: torch-discarded-result [warning] "the result of 'to' is discarded, so 'x' is left unchanged"
  return x;
}

torch::Tensor move_like_another(torch::Tensor x, torch::Tensor other) {
  x = x.to(other); // expect: torch-discarded-result [error] "the copy that 'to' returns on the new device"
  return x;
}

torch::Tensor scale_the_moved_copy(torch::Tensor x, torch::Device device) {
  x = x.to(device).div_(255); // expect: torch-discarded-result [error] "'div_' changes the copy that 'to' returns, which is then discarded, so 'x' stays on its device, unchanged"
  return x;
}

torch::Tensor clamp_as_a_statement(torch::Tensor w) {
  w = torch::clamp(w, -1, 1); // expect: torch-discarded-result [warning] "the result of 'clamp' is discarded, so 'w' is left unchanged and the work is wasted"
  return w;
}

torch::Tensor normalize(torch::Tensor x) {
  x = x.div(255); // expect: torch-discarded-result [warning] "the result of 'div' is discarded" // expect-note: "or use the in-place 'div_'"
  x = x.contiguous(); // expect: torch-discarded-result [warning] "the result of 'contiguous'"
  return x;
}

struct Batch {
  torch::Tensor data;
  torch::Tensor target;
};

void move_members(Batch &batch, torch::Device device) {
  batch.data = batch.data.to(device); // expect: torch-discarded-result [error] "so 'batch.data' stays on its device" // expect-note: "'batch.data = batch.data.to(device)'"
  batch.target = batch.target.to(device);
}

void move_each(std::vector<torch::Tensor> &tensors, torch::Device device) {
  for (auto &t : tensors)
    t = t.to(device); // expect: torch-discarded-result [error]
}

void move_copies(std::vector<torch::Tensor> tensors, torch::Device device) {
  // Assigning to the loop's copy would change nothing either: no fix-it.
  for (auto t : tensors)
    t.to(device); // expect: torch-discarded-result [error] "so 't' stays on its device" // expect-note: "assign the result, to a variable"
}

void move_a_const(const torch::Tensor &x, torch::Device device) {
  x.to(device); // expect: torch-discarded-result [error] "so 'x' stays"
}

void two_operands(torch::Tensor a, torch::Tensor b) {
  torch::add(a, b); // expect: torch-discarded-result [warning] "so its operand is left unchanged"
}

void increment(torch::Tensor x) {
  for (int i = 0; i < 3; x = x.mul(2)) // expect: torch-discarded-result [warning] "the result of 'mul'"
    ++i;
}

void aten_function(torch::Tensor m) {
  m = at::sigmoid(m); // expect: torch-discarded-result [warning] "the result of 'sigmoid'"
}

// Not reported.

torch::Tensor assigned(torch::Tensor x, torch::Device device) {
  x = x.to(device);
  auto y = x.div(255);
  return y.clamp(-1, 1);
}

void in_place(torch::Tensor x, torch::Tensor y) {
  x.clamp_(-1, 1);
  x.div_(255);
  x.copy_(y);
  torch::relu_(x);
}

void in_place_on_views(torch::Tensor x, torch::Tensor y, Net &model) {
  x.narrow(0, 0, 1).copy_(y.narrow(0, 0, 1));
  x.select(0, 0).zero_();
  x.view({-1}).mul_(2);
  for (auto &p : model.parameters())
    p.data().clamp_(-0.01, 0.01);
  torch::NoGradGuard no_grad;
  for (auto &p : model.parameters())
    p.grad().zero_();
}

void module_to(torch::Device device) {
  Net model;
  model.to(device);
  auto linear = torch::nn::Linear(4, 2);
  linear->to(device);
}

void module_and_optimizer_calls(Net &model, torch::optim::SGD &optimizer,
                                torch::Tensor x) {
  model.forward(x); // expect: torch-eval-without-no-grad
  optimizer.step();
}

void discarded_on_purpose(torch::Tensor x, torch::Device device) {
  static_cast<void>(x.to(device));
  (void)x.div(255);
  std::ignore = x.clamp(-1, 1);
}

void factories_as_warm_up(torch::Device device) {
  torch::zeros({1}, torch::TensorOptions().device(device));
  torch::ones_like(torch::empty({1}));
  torch::randn({2}).to(device);
  torch::ones({8, 8}).mm(torch::ones({8, 8})).cuda(); // expect: torch-unchecked-cuda
}

int main() {}
