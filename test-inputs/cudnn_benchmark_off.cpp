// torch-cudnn-benchmark-off: convolutions on the GPU, with fixed input sizes,
// and cuDNN's autotuner never switched on. The setting is global, so each
// place that chooses the device is reported once, at the first module with
// convolutions moved there. Modules without convolutions, modules left on
// the CPU and later moves to a device already reported are not. Programs
// that set it (to true or, deliberately, to false) or whose input sizes vary
// are in pageable_copy.cpp, cpu_tensor_then_moved.cpp and sync_in_loop.cpp.
#include <torch/torch.h>

#include <iostream>
#include <string>

struct EncoderImpl : torch::nn::Module {
  EncoderImpl()
      : features(register_module(
            "features",
            torch::nn::Sequential(torch::nn::Conv2d(3, 16, 3), torch::nn::ReLU(),
                                  torch::nn::Conv2d(16, 32, 3)))),
        head(register_module("head", torch::nn::Linear(32, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = features->forward(x);
    return head(x.mean({2, 3}));
  }
  torch::nn::Sequential features{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Encoder);

struct DecoderImpl : torch::nn::Module {
  DecoderImpl() {
    up = register_module("up", torch::nn::ConvTranspose2d(
                                   torch::nn::ConvTranspose2dOptions(32, 3, 4)
                                       .stride(2)));
  }
  torch::Tensor forward(torch::Tensor x) { return up(x); }
  torch::nn::ConvTranspose2d up{nullptr};
};
TORCH_MODULE(Decoder);

// A module whose convolutions are two levels down.
struct AutoencoderImpl : torch::nn::Module {
  AutoencoderImpl()
      : encoder(register_module("encoder", Encoder())),
        decoder(register_module("decoder", Decoder())) {}
  Encoder encoder{nullptr};
  Decoder decoder{nullptr};
};
TORCH_MODULE(Autoencoder);

// Its convolutions are in a container filled where the member is declared.
struct StagedNetImpl : torch::nn::Module {
  StagedNetImpl() { register_module("stage", stage); }
  torch::Tensor forward(torch::Tensor x) { return stage->forward(x); }
  torch::nn::Sequential stage{torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3)),
                              torch::nn::BatchNorm2d(8), torch::nn::ReLU()};
};
TORCH_MODULE(StagedNet);

// Named like one, but without a convolution.
struct ConvLikeImpl : torch::nn::Module {
  ConvLikeImpl() : fc(register_module("fc", torch::nn::Linear(8, 8))) {}
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(ConvLike);

// Six levels down: a detector's backbone, its stages, their blocks, their
// branches, their units, and there the convolution.
struct UnitImpl : torch::nn::Module {
  UnitImpl() : conv(register_module("conv", torch::nn::Conv2d(8, 8, 3))) {}
  torch::nn::Conv2d conv{nullptr};
};
TORCH_MODULE(Unit);
struct BranchImpl : torch::nn::Module {
  BranchImpl() : unit(register_module("unit", Unit())) {}
  Unit unit{nullptr};
};
TORCH_MODULE(Branch);
struct BlockImpl : torch::nn::Module {
  BlockImpl()
      : left(register_module("left", Branch())),
        right(register_module("right", Branch())) {}
  Branch left{nullptr}, right{nullptr};
};
TORCH_MODULE(Block);
struct StageImpl : torch::nn::Module {
  StageImpl()
      : first(register_module("first", Block())),
        second(register_module("second", Block())) {}
  Block first{nullptr}, second{nullptr};
};
TORCH_MODULE(Stage);
struct BackboneImpl : torch::nn::Module {
  BackboneImpl() : stage(register_module("stage", Stage())) {}
  Stage stage{nullptr};
};
TORCH_MODULE(Backbone);
struct DetectorImpl : torch::nn::Module {
  DetectorImpl()
      : backbone(register_module("backbone", Backbone())),
        head(register_module("head", torch::nn::Linear(8, 4))) {}
  Backbone backbone{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Detector);

// A module that holds one of its own kind, and no convolution.
struct TreeImpl : torch::nn::Module {
  explicit TreeImpl(int depth) {
    fc = register_module("fc", torch::nn::Linear(8, 8));
    if (depth > 0)
      child = register_module("child", std::make_shared<TreeImpl>(depth - 1));
  }
  torch::nn::Linear fc{nullptr};
  std::shared_ptr<TreeImpl> child;
};

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl() : fc(register_module("fc", torch::nn::Linear(64, 10))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Classifier);

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}

void train(Encoder &model, torch::Device device) {
  torch::optim::Adam optimizer(model->parameters(), 1e-3);
  for (int step = 0; step < 1000; ++step) {
    auto images = torch::rand({64, 3, 32, 32}, torch::TensorOptions().device(device));
    auto labels = torch::randint(10, {64}, torch::TensorOptions().device(device));
    // Sized like the batch: a shape the loop already has, not a new one.
    auto smoothing = torch::full({images.size(0)}, 0.1,
                                 torch::TensorOptions().device(device));
    optimizer.zero_grad();
    auto loss = torch::cross_entropy_loss(model(images), labels) + smoothing.mean();
    loss.backward();
    optimizer.step();
  }
}

// --- positives: one per place that chooses the device ----------------------

void device_after_an_availability_check() {
  if (!torch::cuda::is_available())
    return;
  torch::Device device(torch::kCUDA);
  Encoder model;
  model->to(device); // expect: torch-cudnn-benchmark-off [note] "'model' runs convolutions on the GPU with cuDNN's autotuner off, so cuDNN picks its algorithms" // expect-note: "call 'at::globalContext().setBenchmarkCuDNN(true)' once after choosing the device"
  train(model, device);
  Encoder second;
  second->to(device); // the same device choice: not reported again
}

void device_chosen_by_availability() {
  torch::Device device = torch::cuda::is_available()
                             ? torch::Device(torch::kCUDA)
                             : torch::Device(torch::kCPU);
  torch::nn::Sequential stack(torch::nn::Conv1d(1, 8, 5), torch::nn::ReLU(),
                              torch::nn::Conv1d(8, 8, 5));
  stack->to(device); // expect: torch-cudnn-benchmark-off
}

void device_from_a_string() {
  if (!torch::cuda::is_available())
    return;
  torch::Device device("cuda:0");
  torch::nn::Conv3d volume(torch::nn::Conv3dOptions(1, 4, 3));
  volume->to(device); // expect: torch-cudnn-benchmark-off
}

void device_type_variable() {
  auto device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  Decoder decoder;
  decoder->to(device); // expect: torch-cudnn-benchmark-off
}

void device_written_in_the_move() {
  if (!torch::cuda::is_available())
    return;
  Encoder model;
  model->to(torch::kCUDA); // expect: torch-cudnn-benchmark-off
}

void device_from_a_helper() {
  auto device = pick_device();
  Autoencoder model;
  model->to(device); // expect: torch-cudnn-benchmark-off
}

void device_and_dtype() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Encoder model;
  model->to(device, torch::kHalf); // expect: torch-cudnn-benchmark-off
}

void conv_layer_alone() {
  torch::Device device = pick_device();
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 3, 1).bias(false));
  conv->to(device); // expect: torch-cudnn-benchmark-off
  conv->forward(torch::rand({1, 3, 8, 8}, torch::TensorOptions().device(device))).sum().backward();
}

void device_by_index(int rank) {
  if (!torch::cuda::is_available())
    return;
  torch::Device device(torch::kCUDA, rank);
  Encoder replica;
  replica->to(device); // expect: torch-cudnn-benchmark-off
}

void layers_in_a_member_initializer() {
  torch::Device device = pick_device();
  StagedNet net;
  net->to(device); // expect: torch-cudnn-benchmark-off
}

void two_models_on_one_device() {
  torch::Device device = pick_device();
  Classifier head;
  head->to(device);
  Decoder decoder;
  decoder->to(device); // expect: torch-cudnn-benchmark-off
  Encoder encoder;
  encoder->to(device);
}

void convolutions_six_levels_down() {
  torch::Device device = pick_device();
  Detector detector;
  detector->to(device); // expect: torch-cudnn-benchmark-off
}

// --- negatives ------------------------------------------------------------

void module_holding_its_own_kind() {
  torch::Device device = pick_device();
  auto tree = std::make_shared<TreeImpl>(3);
  tree->to(device);
}

void no_convolution_on_the_gpu() {
  torch::Device device = pick_device();
  Classifier classifier;
  classifier->to(device);
  ConvLike conv_like;
  conv_like->to(device);
  torch::nn::MaxPool2d pool(torch::nn::MaxPool2dOptions(2));
  pool->to(device);
}

void convolutions_left_on_the_cpu() {
  Encoder model;
  model->forward(torch::rand({8, 3, 32, 32})).sum().backward();
}

void convolutions_on_the_cpu_branch() {
  if (!torch::cuda::is_available()) {
    Encoder model;
    model->to(torch::Device(torch::kCPU));
  }
}

void options_only() {
  auto options = torch::nn::Conv2dOptions(3, 8, 3).stride(2);
  std::cout << options.in_channels() << "\n";
}

void functional_convolution() {
  torch::Device device = pick_device();
  auto weight = torch::rand({8, 3, 3, 3}, torch::TensorOptions().device(device));
  auto image = torch::rand({1, 3, 32, 32}, torch::TensorOptions().device(device));
  (torch::conv2d(image, weight).sum() + weight.sum()).backward();
}

int main(int argc, char **) {
  device_after_an_availability_check();
  device_chosen_by_availability();
  device_from_a_string();
  device_type_variable();
  device_written_in_the_move();
  device_from_a_helper();
  device_and_dtype();
  conv_layer_alone();
  device_by_index(argc - 1);
  layers_in_a_member_initializer();
  two_models_on_one_device();
  convolutions_six_levels_down();
  no_convolution_on_the_gpu();
  module_holding_its_own_kind();
  convolutions_left_on_the_cpu();
  convolutions_on_the_cpu_branch();
  options_only();
  functional_convolution();
}
