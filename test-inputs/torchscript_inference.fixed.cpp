// TorchScript inference, as most libtorch programs run it: a module exported
// from Python, loaded with torch::jit::load and run on every frame or
// request. The device flow follows the module (loaded, moved, shared),
// the IValues it is given ({frame}, a vector filled with push_back) and the
// tensors taken back out of its result (toTensor(), toTuple()->elements()).
// A module loaded and never moved is on the devices it was saved from, which
// the program does not say: nothing is reported against it.
#include <torch/cuda.h>
#include <torch/script.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                     : torch::Device(torch::kCPU);
}

torch::Tensor wrap_frame(std::vector<uint8_t> &pixels) {
  return torch::from_blob(pixels.data(), {1, 480, 640, 3}, torch::kByte)
      .permute({0, 3, 1, 2})
      .to(torch::kFloat)
      .div(255);
}

// --- positives -------------------------------------------------------------

void camera_loop(const std::string &path, std::vector<uint8_t> &pixels) {
  torch::NoGradGuard no_grad;
  torch::jit::script::Module module = torch::jit::load(path);
  torch::Device device = pick_device();
  module.to(device);
  module.eval();
  for (int frame = 0; frame < 1000; ++frame) {
    torch::Tensor input = wrap_frame(pixels);
    auto output = module.forward({input.to(device)}).toTensor(); // expect: torch-device-mismatch [error] "input 'input' is on the CPU but module 'module' is on the GPU, so the call fails"
    std::cout << output.argmax(1) << "\n";
  }
}

void request_handler(const std::string &path, const torch::Tensor &request) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path, device);
  std::vector<torch::jit::IValue> inputs;
  inputs.push_back(request.to(torch::kFloat));
  torch::Tensor scores = module.forward(inputs).toTensor(); // expect: torch-device-mismatch [error] "input 'inputs' is on the CPU but module 'module' is on the GPU"
  std::cout << scores.max() << "\n";
}

void shared_detector(const std::string &path, std::vector<uint8_t> &pixels) {
  c10::InferenceMode guard;
  auto detector =
      std::make_shared<torch::jit::script::Module>(torch::jit::load(path));
  detector->to(torch::kCUDA); // expect: torch-unchecked-cuda
  torch::Tensor frame = wrap_frame(pixels);
  auto boxes = detector->run_method("forward", frame.to(torch::kCUDA)).toTensor(); // expect: torch-device-mismatch
  std::cout << boxes.sizes() << "\n";
}

void named_method(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::jit::Module module = torch::jit::load(path);
  module.to(pick_device());
  torch::Tensor batch = torch::rand({8, 3, 224, 224});
  auto logits = module.get_method("forward")({batch.to(pick_device())}).toTensor(); // expect: torch-device-mismatch
  std::cout << logits.argmax(1) << "\n";
}

void tuple_outputs(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path, device);
  torch::Tensor image = torch::rand({1, 3, 224, 224}, device);
  auto outputs = module.forward({image}).toTuple();
  torch::Tensor boxes = outputs->elements()[0].toTensor();
  torch::Tensor anchors = torch::rand({100, 4});
  torch::Tensor shifted = boxes - anchors.to(device); // expect: torch-device-mismatch [error] "'anchors' is on the CPU but 'boxes' is on the GPU"
  std::cout << shifted.sum() << "\n";
}

void evaluate_without_guard(const std::string &path) {
  c10::InferenceMode inference_mode;
  torch::jit::Module module = torch::jit::load(path);
  module.eval();
  double total = 0;
  for (int batch = 0; batch < 100; ++batch) {
    std::vector<torch::jit::IValue> inputs{torch::rand({32, 3, 224, 224})};
    total += module.forward(inputs).toTensor().sum().item<double>(); // expect: torch-eval-without-no-grad [warning] "'module' runs forward in evaluation mode while autograd records"
  }
  std::cout << total << "\n";
}

void video_loop(const std::string &path, std::vector<uint8_t> &pixels) {
  c10::InferenceMode guard;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path, device);
  for (int frame = 0; frame < 1000; ++frame) {
    torch::Tensor input = wrap_frame(pixels).to(device); // expect: torch-pageable-copy [warning] "'wrap_frame(pixels)' is copied to the GPU from pageable host memory on every iteration", torch-widen-before-copy [note] "'wrap_frame(pixels)' is widened from uint8 to float32 on the host"
    torch::Tensor scores = module.forward({input}).toTensor();
    int64_t label = scores.argmax(1).item<int64_t>();
    float confidence = scores.max().item<float>(); // expect: torch-sync-in-loop [warning] "'scores.max().item()' waits for the GPU on every iteration"
    std::cout << label << " " << confidence << "\n";
  }
}

void load_on_the_gpu(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::jit::Module module = torch::jit::load(path, torch::kCUDA); // expect: torch-unchecked-cuda [warning] "'torch::kCUDA' is used without checking"
  torch::Tensor batch = torch::rand({8, 3, 224, 224}, torch::kCUDA); // expect: torch-unchecked-cuda
  std::cout << module.forward({batch}).toTensor().argmax(1) << "\n";
}

void accuracy(const std::string &path, const torch::Tensor &images,
              const torch::Tensor &labels) {
  c10::InferenceMode guard;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path, device);
  int64_t correct = 0;
  for (int64_t i = 0; i < images.size(0); i += 32) {
    torch::Tensor batch = images.slice(0, i, i + 32).to(device); // expect: torch-pageable-copy
    torch::Tensor target = labels.slice(0, i, i + 32).to(device); // expect: torch-pageable-copy
    auto output = module.forward({batch}).toTensor();
    correct += output.argmax(1).eq(target).sum().item<int64_t>(); // expect: torch-sync-in-loop
  }
  std::cout << correct << "\n";
}

void loaded_on_cpu(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::jit::Module module = torch::jit::load(path, torch::kCPU); // expect: torch-hardcoded-cpu-device [warning] "module 'module' is placed on a hard-coded CPU device"
  torch::Tensor batch = torch::rand({8, 3, 224, 224});
  std::cout << module.forward({batch}).toTensor().argmax(1) << "\n";
}

// --- negatives -------------------------------------------------------------

void never_moved(const std::string &path, std::vector<uint8_t> &pixels) {
  torch::NoGradGuard no_grad;
  torch::jit::Module module = torch::jit::load(path);
  module.eval();
  torch::Tensor input = wrap_frame(pixels);
  std::cout << module.forward({input}).toTensor().argmax(1) << "\n";
}

void frame_moved(const std::string &path, std::vector<uint8_t> &pixels) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path);
  module.to(device);
  torch::Tensor input = wrap_frame(pixels).to(device);
  std::cout << module.forward({input}).toTensor().argmax(1) << "\n";
}

void pushed_after_move(const std::string &path, const torch::Tensor &request) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path, device);
  std::vector<torch::jit::IValue> inputs;
  inputs.push_back(request.to(device));
  std::cout << module.forward(inputs).toTensor().max() << "\n";
}

void outputs_on_one_device(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path, device);
  torch::Tensor image = torch::rand({1, 3, 224, 224}, device);
  auto outputs = module.forward({image}).toTuple();
  torch::Tensor boxes = outputs->elements()[0].toTensor();
  torch::Tensor anchors = torch::rand({100, 4}, device);
  std::cout << (boxes - anchors).sum() << "\n";
}

void half_precision(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path);
  module.to(device);
  module.to(torch::kHalf);
  torch::Tensor batch = torch::rand({8, 3, 224, 224}, device).to(torch::kHalf);
  std::cout << module.forward({batch}).toTensor().argmax(1) << "\n";
}

void inference_mode_outside(const std::string &path) {
  c10::InferenceMode guard;
  torch::jit::Module module = torch::jit::load(path);
  module.eval();
  for (int batch = 0; batch < 10; ++batch)
    std::cout << module.forward({torch::rand({1, 3, 224, 224})}).toTensor()
              << "\n";
}

void pinned_staging(const std::string &path, std::vector<uint8_t> &pixels) {
  c10::InferenceMode guard;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path, device);
  torch::Tensor staging = torch::empty(
      {1, 480, 640, 3},
      torch::TensorOptions().dtype(torch::kByte).pinned_memory(true));
  for (int frame = 0; frame < 1000; ++frame) {
    std::memcpy(staging.data_ptr(), pixels.data(), pixels.size());
    torch::Tensor input =
        staging.to(device).permute({0, 3, 1, 2}).to(torch::kFloat);
    torch::Tensor scores = module.forward({input}).toTensor().cpu();
    std::cout << scores.argmax(1).item<int64_t>() << "\n";
  }
}

torch::Tensor handle(torch::jit::Module &module, const torch::Tensor &request) {
  return module.forward({request}).toTensor();
}

void serve(const std::string &path,
           const std::vector<torch::Tensor> &requests) {
  c10::InferenceMode guard;
  torch::jit::Module module = torch::jit::load(path);
  module.eval();
  for (const torch::Tensor &request : requests)
    std::cout << handle(module, request) << "\n";
}

void generate(const std::string &path, torch::Tensor tokens) {
  c10::InferenceMode guard;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path, device);
  tokens = tokens.to(device);
  for (int step = 0; step < 64; ++step) {
    torch::Tensor logits = module.forward({tokens}).toTensor();
    torch::Tensor next = logits.select(1, -1).argmax(-1, true);
    if (next.item<int64_t>() == 0)
      break;
    tokens = torch::cat({tokens, next}, 1);
  }
}

void loaded_as_saved(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  torch::jit::Module module = torch::jit::load(path);
  for (int frame = 0; frame < 100; ++frame) {
    torch::Tensor input = torch::rand({1, 3, 224, 224}, device);
    std::cout << module.forward({input}).toTensor().argmax(1).item<int64_t>() << "\n";
  }
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 1;
  std::string path = argv[1];
  std::vector<uint8_t> pixels(480 * 640 * 3);
  torch::Tensor request = torch::rand({1, 16});
  camera_loop(path, pixels);
  request_handler(path, request);
  shared_detector(path, pixels);
  named_method(path);
  tuple_outputs(path);
  evaluate_without_guard(path);
  never_moved(path, pixels);
  frame_moved(path, pixels);
  pushed_after_move(path, request);
  loaded_on_cpu(path);
  outputs_on_one_device(path);
  half_precision(path);
  inference_mode_outside(path);
  video_loop(path, pixels);
  load_on_the_gpu(path);
  accuracy(path, torch::rand({256, 3, 224, 224}), torch::randint(10, {256}));
  pinned_staging(path, pixels);
  serve(path, {request});
  generate(path, torch::zeros({1, 1}, torch::kLong));
  loaded_as_saved(path);
}
