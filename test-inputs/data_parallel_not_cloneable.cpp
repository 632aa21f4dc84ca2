// torch-data-parallel-not-cloneable: a module handed to data_parallel (on
// more than one device, or on every visible GPU) or to replicate, which
// clone it for each device, when clone() throws for it: a plain
// torch::nn::Module subclass, a Cloneable whose constructor registers what
// its reset() does not, or a Cloneable with such a submodule. Reported at
// the call, with notes at the class or the registration. Not reported on a
// one-device list, for libtorch's modules, for a correct Cloneable, or for
// a class that writes its own clone().
// torchlint-test: links-cuda
#include <torch/torch.h>
#include <torch/nn/parallel/data_parallel.h>

#include <memory>
#include <vector>

using torch::nn::parallel::data_parallel;
using torch::nn::parallel::replicate;

// A plain module: Module::clone() throws for it.
struct Net : torch::nn::Module { // expect-note: "'Net' derives from torch::nn::Module, whose clone() throws: only torch::nn::Cloneable implements it"
  Net() { fc = register_module("fc", torch::nn::Linear(8, 8)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};

struct BlockImpl : torch::nn::Module {
  BlockImpl() { conv = register_module("conv", torch::nn::Conv1d(4, 4, 3)); }
  torch::Tensor forward(torch::Tensor x) { return conv(x); }
  torch::nn::Conv1d conv{nullptr};
};
TORCH_MODULE(Block);

// Cloneable, but its constructor registers and reset() does not.
struct EncoderImpl : torch::nn::Cloneable<EncoderImpl> {
  EncoderImpl() { fc = register_module("fc", torch::nn::Linear(8, 8)); } // expect-note: "'EncoderImpl''s constructor registers this, and its reset() does not"
  void reset() override {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Encoder);

// The same through a member initialiser.
struct HeadImpl : torch::nn::Cloneable<HeadImpl> {
  HeadImpl() : fc(register_module("fc", torch::nn::Linear(8, 2))) {}
  void reset() override {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Head);

// reset() registers one member, the constructor another.
struct SplitImpl : torch::nn::Cloneable<SplitImpl> {
  SplitImpl() {
    reset();
    scale = register_parameter("scale", torch::ones({8}));
  }
  void reset() override { fc = register_module("fc", torch::nn::Linear(8, 8)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x) * scale; }
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale;
};
TORCH_MODULE(Split);

// Cloneable itself, with a submodule that is not.
struct WrapperImpl : torch::nn::Cloneable<WrapperImpl> {
  WrapperImpl() { reset(); }
  void reset() override {
    inner = register_module("inner", std::make_shared<Net>()); // expect-note: "Cloneable's clone() clones the submodule registered here"
  }
  torch::Tensor forward(torch::Tensor x) { return inner->forward(x); }
  std::shared_ptr<Net> inner;
};
TORCH_MODULE(Wrapper);

// Two levels down.
struct OuterImpl : torch::nn::Cloneable<OuterImpl> {
  OuterImpl() { reset(); }
  void reset() override { wrapper = register_module("wrapper", Wrapper()); }
  torch::Tensor forward(torch::Tensor x) { return wrapper(x); }
  Wrapper wrapper{nullptr};
};
TORCH_MODULE(Outer);

// A correct Cloneable whose submodule registers in its constructor.
struct HolderImpl : torch::nn::Cloneable<HolderImpl> {
  HolderImpl() { reset(); }
  void reset() override { encoder = register_module("encoder", Encoder()); }
  torch::Tensor forward(torch::Tensor x) { return encoder(x); }
  Encoder encoder{nullptr};
};
TORCH_MODULE(Holder);

// A subclass of the program's own module base.
struct BaseModel : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x; }
};
struct DerivedModel : BaseModel {
  DerivedModel() { fc = register_module("fc", torch::nn::Linear(8, 8)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};

template <int Width> struct Stack : torch::nn::Module {
  Stack() { fc = register_module("fc", torch::nn::Linear(Width, Width)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};

std::vector<torch::Device> devicesFromFlags(int count) {
  std::vector<torch::Device> devices;
  for (int i = 0; i < count; ++i)
    devices.emplace_back(torch::kCUDA, i);
  return devices;
}

void plainModules(torch::Tensor x, const std::vector<torch::Device> &devices) {
  auto net = std::make_shared<Net>();
  data_parallel(net, x); // expect: torch-data-parallel-not-cloneable [error] "'Net' cannot be cloned, so data_parallel, which clones the module for each device, throws whenever more than one GPU is visible"
  data_parallel(net, x, devices); // expect: torch-data-parallel-not-cloneable [error] "throws whenever it runs on more than one device"
  Block block;
  data_parallel(block, x, devices); // expect: torch-data-parallel-not-cloneable [error] "'BlockImpl' cannot be cloned"
  data_parallel(net, x, // expect: torch-data-parallel-not-cloneable [error] "'Net' cannot be cloned"
                std::vector<torch::Device>{torch::Device(torch::kCUDA, 0),
                                           torch::Device(torch::kCUDA, 1)});
  auto derived = std::make_shared<DerivedModel>();
  data_parallel(derived, x, devicesFromFlags(2)); // expect: torch-data-parallel-not-cloneable [error] "'DerivedModel' cannot be cloned"
  auto stack = std::make_shared<Stack<8>>();
  data_parallel(stack, x); // expect: torch-data-parallel-not-cloneable [error] "'Stack' cannot be cloned"
}

void replicated(const std::vector<torch::Device> &devices) {
  auto net = std::make_shared<Net>();
  // replicate clones for each device, even for one.
  auto replicas = replicate(net, std::vector<torch::Device>{torch::kCUDA}); // expect: torch-data-parallel-not-cloneable [error] "'Net' cannot be cloned, so replicate, which clones the module for each device, throws"
  (void)replicas;
  Block block;
  auto blocks = replicate(block, devices); // expect: torch-data-parallel-not-cloneable [error] "'BlockImpl' cannot be cloned, so replicate"
  (void)blocks;
}

void cloneablesThatThrow(torch::Tensor x,
                         const std::vector<torch::Device> &devices) {
  Encoder encoder;
  data_parallel(encoder, x, devices); // expect: torch-data-parallel-not-cloneable [error] "'EncoderImpl' cannot be cloned"
  Head head;
  data_parallel(head, x); // expect: torch-data-parallel-not-cloneable [error] "'HeadImpl' cannot be cloned"
  Split split;
  data_parallel(split, x, devices); // expect: torch-data-parallel-not-cloneable [error] "'SplitImpl' cannot be cloned"
  Wrapper wrapper;
  data_parallel(wrapper, x, devices); // expect: torch-data-parallel-not-cloneable [error] "the clones data_parallel makes of 'WrapperImpl' get a new 'Net' with fresh weights on the CPU instead of a copy of its submodule, so the replicas fail on their devices whenever it runs on more than one device, or compute with untrained weights"
  Holder holder;
  data_parallel(holder, x, devices); // expect: torch-data-parallel-not-cloneable [error] "'HolderImpl' (its submodule 'EncoderImpl') cannot be cloned, so data_parallel"
  Outer outer;
  data_parallel(outer, x); // expect: torch-data-parallel-not-cloneable [error] "the clones data_parallel makes of 'OuterImpl' get a new 'Net'"
  auto step = [&](torch::Tensor batch) {
    return data_parallel(encoder, batch, devices); // expect: torch-data-parallel-not-cloneable [error] "'EncoderImpl' cannot be cloned"
  };
  step(x);
}

// Negative cases.

struct GoodImpl : torch::nn::Cloneable<GoodImpl> {
  GoodImpl() { reset(); }
  void reset() override { fc = register_module("fc", torch::nn::Linear(8, 8)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Good);

// Registers the same members in both: the clone's reset() rebuilds them all.
struct TwiceImpl : torch::nn::Cloneable<TwiceImpl> {
  TwiceImpl() { fc = register_module("fc", torch::nn::Linear(8, 8)); }
  void reset() override { fc = register_module("fc", torch::nn::Linear(8, 8)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Twice);

// A Cloneable whose submodule is a correct Cloneable.
struct NestedImpl : torch::nn::Cloneable<NestedImpl> {
  NestedImpl() { reset(); }
  void reset() override { good = register_module("good", Good()); }
  torch::Tensor forward(torch::Tensor x) { return good(x); }
  Good good{nullptr};
};
TORCH_MODULE(Nested);

// A module that writes its own clone().
struct OwnClone : torch::nn::Module {
  OwnClone() { fc = register_module("fc", torch::nn::Linear(8, 8)); }
  std::shared_ptr<torch::nn::Module>
  clone(const torch::optional<torch::Device> &device =
            torch::nullopt) const override {
    auto copy = std::make_shared<OwnClone>();
    if (device)
      copy->to(*device);
    return copy;
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};

void cloneableModules(torch::Tensor x,
                      const std::vector<torch::Device> &devices) {
  Good good;
  data_parallel(good, x);
  data_parallel(good, x, devices);
  auto replicas = replicate(good, devices);
  (void)replicas;
  Twice twice;
  data_parallel(twice, x, devices);
  Nested nested;
  data_parallel(nested, x);
  auto own = std::make_shared<OwnClone>();
  data_parallel(own, x, devices);
  torch::nn::Linear linear(8, 8);
  data_parallel(linear, x);
  torch::nn::Sequential sequential(torch::nn::Linear(8, 8), torch::nn::ReLU());
  data_parallel(sequential, x, devices);
}

void oneDevice(torch::Tensor x) {
  torch::NoGradGuard no_grad;
  auto net = std::make_shared<Net>();
  // One device: data_parallel moves the module there and runs it, no clone.
  data_parallel(net, x, std::vector<torch::Device>{torch::kCUDA});
  data_parallel(net, x,
                std::vector<torch::Device>{torch::Device(torch::kCUDA, 1)});
  const std::vector<torch::Device> single{torch::Device(torch::kCUDA, 0)};
  data_parallel(net, x, single);
  Encoder encoder;
  data_parallel(encoder, x, std::vector<torch::Device>{torch::kCUDA});
  net->forward(x);
}
