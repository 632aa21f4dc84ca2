// torch-setup-in-loop: what a program sets up once (a TorchScript model
// loaded, a module or an optimizer constructed) done on every iteration of
// the loop that runs the model. Loops over different files or
// configurations, retries, lazy initialisation and setups that a branch
// runs now and then are fine.
#include <torch/script.h>
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(16, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

torch::Tensor next_frame() { return torch::rand({1, 16}); }
bool next_request(torch::Tensor &request) {
  request = torch::rand({1, 16});
  return request.sum().item<float>() > 1;
}

// --- positives -------------------------------------------------------------

void frame_loop(const std::string &path) {
  torch::NoGradGuard no_grad;
  for (int frame = 0; frame < 1000; ++frame) {
    torch::jit::Module module = torch::jit::load(path); // expect: torch-setup-in-loop [warning] "'torch::jit::load' runs on every iteration of the loop that runs the model, so each iteration reads and deserializes the model file again"
    auto scores = module.forward({next_frame()}).toTensor();
    std::cout << scores.argmax(1) << "\n";
  }
}

void request_loop(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::Tensor request;
  while (next_request(request)) {
    auto module = torch::jit::load(path); // expect: torch-setup-in-loop
    std::cout << module.forward({request}).toTensor() << "\n";
  }
}

void chained(const std::string &path, const std::vector<torch::Tensor> &batch) {
  torch::NoGradGuard no_grad;
  for (const torch::Tensor &x : batch)
    std::cout << torch::jit::load(path).forward({x}).toTensor() << "\n"; // expect: torch-setup-in-loop
}

void shared_module(const std::string &path) {
  torch::NoGradGuard no_grad;
  for (int frame = 0; frame < 100; ++frame) {
    auto module = std::make_shared<torch::jit::Module>(torch::jit::load(path)); // expect: torch-setup-in-loop
    std::cout << module->forward({next_frame()}).toTensor() << "\n";
  }
}

void per_request_model(const std::vector<torch::Tensor> &requests) {
  torch::NoGradGuard no_grad;
  for (const torch::Tensor &request : requests) {
    Net model; // expect: torch-setup-in-loop [warning] "module 'model' is constructed on every iteration of the loop that runs it, so each iteration allocates and initializes its parameters again"
    model->eval();
    std::cout << model->forward(request) << "\n";
  }
}

void layer_per_step(Net &model, const std::vector<torch::Tensor> &batches) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (const torch::Tensor &x : batches) {
    torch::nn::Linear head(4, 2); // expect: torch-setup-in-loop
    optimizer.zero_grad();
    auto loss = head(model(x)).pow(2).mean();
    loss.backward();
    optimizer.step();
  }
}

void optimizer_per_step(Net &model, const std::vector<torch::Tensor> &batches) {
  for (const torch::Tensor &x : batches) {
    torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9)); // expect: torch-setup-in-loop [warning] "optimizer 'optimizer' is constructed on every iteration of the loop that steps it, so each step allocates its state again and forgets its momentum"
    optimizer.zero_grad();
    auto loss = model(x).pow(2).mean();
    loss.backward();
    optimizer.step();
  }
}

void adam_per_step(Net &model, const std::vector<torch::Tensor> &batches) {
  for (const torch::Tensor &x : batches) {
    auto optimizer = std::make_unique<torch::optim::Adam>(model->parameters()); // expect: torch-setup-in-loop
    optimizer->zero_grad();
    model(x).pow(2).mean().backward();
    optimizer->step();
  }
}

void made_shared_per_frame() {
  torch::NoGradGuard no_grad;
  for (int frame = 0; frame < 100; ++frame) {
    auto net = std::make_shared<NetImpl>(); // expect: torch-setup-in-loop
    std::cout << net->forward(next_frame()) << "\n";
  }
}

void do_while_frames(const std::string &path) {
  c10::InferenceMode guard;
  int frame = 0;
  do {
    torch::jit::script::Module detector = torch::jit::load(path, torch::kCPU); // expect: torch-setup-in-loop, torch-hardcoded-cpu-device
    std::cout << detector.forward({next_frame()}).toTensor() << "\n";
  } while (++frame < 100);
}

void name_taken(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::jit::Module module = torch::jit::load(path);
  std::cout << module.forward({next_frame()}).toTensor() << "\n";
  for (int frame = 0; frame < 100; ++frame) {
    torch::jit::Module module = torch::jit::load(path); // expect: torch-setup-in-loop
    std::cout << module.forward({next_frame()}).toTensor() << "\n";
  }
}

void stored_per_frame(std::vector<Net> &history) {
  torch::NoGradGuard no_grad;
  for (int frame = 0; frame < 10; ++frame) {
    Net snapshot; // expect: torch-setup-in-loop
    std::cout << snapshot->forward(next_frame()) << "\n";
    history.push_back(snapshot);
  }
}

void loop_under_an_if(const std::string &path, bool run) {
  torch::NoGradGuard no_grad;
  if (run)
    for (int frame = 0; frame < 10; ++frame) {
      torch::jit::Module module = torch::jit::load(path); // expect: torch-setup-in-loop
      std::cout << module.forward({next_frame()}).toTensor() << "\n";
    }
}

// --- negatives -------------------------------------------------------------

void loaded_once(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::jit::Module module = torch::jit::load(path);
  for (int frame = 0; frame < 1000; ++frame)
    std::cout << module.forward({next_frame()}).toTensor() << "\n";
}

void every_model(const std::vector<std::string> &paths) {
  torch::NoGradGuard no_grad;
  for (const std::string &path : paths) {
    torch::jit::Module module = torch::jit::load(path);
    std::cout << module.forward({next_frame()}).toTensor() << "\n";
  }
}

void numbered_checkpoints(const std::string &folder) {
  torch::NoGradGuard no_grad;
  for (int epoch = 0; epoch < 10; ++epoch) {
    std::string path = folder + "/epoch" + std::to_string(epoch) + ".pt";
    auto module = torch::jit::load(path);
    std::cout << module.forward({next_frame()}).toTensor() << "\n";
  }
}

void lazily_loaded(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::jit::Module module;
  bool loaded = false;
  for (int frame = 0; frame < 1000; ++frame) {
    if (!loaded) {
      module = torch::jit::load(path);
      loaded = true;
    }
    std::cout << module.forward({next_frame()}).toTensor() << "\n";
  }
}

void reloaded_now_and_then(const std::string &path) {
  torch::NoGradGuard no_grad;
  torch::jit::Module module = torch::jit::load(path);
  for (int frame = 0; frame < 1000; ++frame) {
    if (frame % 500 == 0)
      module = torch::jit::load(path);
    std::cout << module.forward({next_frame()}).toTensor() << "\n";
  }
}

void retried(const std::string &path) {
  torch::NoGradGuard no_grad;
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      torch::jit::Module module = torch::jit::load(path);
      std::cout << module.forward({next_frame()}).toTensor() << "\n";
      break;
    } catch (const c10::Error &error) {
      std::cerr << error.what() << "\n";
    }
  }
}

void ensemble(const std::vector<torch::Tensor> &batches) {
  std::vector<Net> members;
  for (int member = 0; member < 5; ++member)
    members.push_back(Net());
  for (Net &net : members) {
    torch::optim::SGD optimizer(net->parameters(), 0.01);
    for (const torch::Tensor &x : batches) {
      optimizer.zero_grad();
      net(x).pow(2).mean().backward();
      optimizer.step();
    }
  }
}

void learning_rate_search(const std::vector<torch::Tensor> &batches) {
  for (double lr : {0.1, 0.01, 0.001}) {
    Net model;
    torch::optim::SGD optimizer(model->parameters(), lr);
    for (const torch::Tensor &x : batches) {
      optimizer.zero_grad();
      model(x).pow(2).mean().backward();
      optimizer.step();
    }
  }
}

void losses_and_activations(Net &model, const std::vector<torch::Tensor> &batches) {
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (const torch::Tensor &x : batches) {
    torch::nn::ReLU relu;
    torch::nn::MSELoss criterion;
    optimizer.zero_grad();
    criterion(relu(model(x)), torch::zeros({1, 4})).backward();
    optimizer.step();
  }
}

void holders_and_copies(Net &model) {
  torch::NoGradGuard no_grad;
  for (int frame = 0; frame < 10; ++frame) {
    Net none{nullptr};
    Net alias = model;
    std::cout << alias->forward(next_frame()) << "\n";
    (void)none;
  }
}

void models_built_in_a_loop(std::vector<Net> &models) {
  for (int i = 0; i < 4; ++i)
    models.push_back(Net());
}

void optimizer_per_fold(const std::vector<torch::Tensor> &batches) {
  for (int fold = 0; fold < 5; ++fold) {
    Net model;
    torch::optim::Adam optimizer(model->parameters());
    for (const torch::Tensor &x : batches) {
      optimizer.zero_grad();
      model(x).pow(2).mean().backward();
      optimizer.step();
    }
  }
}

void named_models(const std::vector<std::pair<std::string, std::string>> &models) {
  torch::NoGradGuard no_grad;
  for (const auto &[name, path] : models) {
    torch::jit::Module module = torch::jit::load(path);
    std::cout << name << module.forward({next_frame()}).toTensor() << "\n";
  }
}

void containers_and_pointers(Net &model) {
  torch::NoGradGuard no_grad;
  for (int frame = 0; frame < 10; ++frame) {
    std::vector<torch::nn::Linear> heads;
    std::shared_ptr<NetImpl> none;
    std::shared_ptr<torch::nn::Module> base = model.ptr();
    std::cout << model->forward(next_frame()) << heads.size() << "\n";
    (void)none;
    (void)base;
  }
}

void fold_with_validation(const std::vector<torch::Tensor> &batches) {
  for (int fold = 0; fold < 5; ++fold) {
    Net model;
    torch::optim::Adam optimizer(model->parameters());
    for (const torch::Tensor &x : batches) {
      optimizer.zero_grad();
      model(x).pow(2).mean().backward();
      optimizer.step();
    }
    torch::NoGradGuard no_grad;
    std::cout << model(batches.front()).sum() << "\n";
  }
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 1;
  std::string path = argv[1];
  std::vector<torch::Tensor> batches(8, torch::rand({1, 16}));
  Net model;
  std::vector<Net> models;
  frame_loop(path);
  request_loop(path);
  chained(path, batches);
  shared_module(path);
  per_request_model(batches);
  layer_per_step(model, batches);
  optimizer_per_step(model, batches);
  adam_per_step(model, batches);
  made_shared_per_frame();
  do_while_frames(path);
  name_taken(path);
  loaded_once(path);
  every_model({path});
  numbered_checkpoints(".");
  lazily_loaded(path);
  reloaded_now_and_then(path);
  retried(path);
  ensemble(batches);
  learning_rate_search(batches);
  losses_and_activations(model, batches);
  holders_and_copies(model);
  models_built_in_a_loop(models);
  optimizer_per_fold(batches);
  stored_per_frame(models);
  loop_under_an_if(path, true);
  named_models({{"a", path}});
  containers_and_pointers(model);
  fold_with_validation(batches);
}
