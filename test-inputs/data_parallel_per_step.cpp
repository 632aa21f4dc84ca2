// torch-data-parallel-per-step (off by default): data_parallel, on more
// than one device, called on every iteration of a loop: each call copies
// every parameter of the model to each device before it computes. Reported
// at the call, with a note at the loop, or at the call in the loop that
// leads to it. Not reported on one device, outside loops, or where it runs
// once (a range-for's range, a for's init).
// torchlint-test: links-cuda checks=torch-data-parallel-per-step
#include <torch/torch.h>
#include <torch/nn/parallel/data_parallel.h>

#include <vector>

using torch::nn::parallel::data_parallel;

struct NetImpl : torch::nn::Cloneable<NetImpl> {
  NetImpl() { reset(); }
  void reset() override { fc = register_module("fc", torch::nn::Linear(8, 8)); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

void train(Net &model, torch::optim::SGD &optimizer,
           const std::vector<torch::Tensor> &batches) {
  for (int epoch = 0; epoch < 10; ++epoch)
    for (const torch::Tensor &batch : batches) { // expect-note: "the loop that calls it on every iteration"
      optimizer.zero_grad();
      torch::Tensor loss = data_parallel(model, batch).pow(2).mean(); // expect: torch-data-parallel-per-step [note] "data_parallel copies every parameter of 'model' to each device on every call, here on every iteration"
      loss.backward();
      optimizer.step();
    }
}

void trainOnDevices(Net &model, torch::optim::Adam &optimizer,
                    torch::Tensor x, const std::vector<torch::Device> &devices) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    data_parallel(model, x, devices).sum().backward(); // expect: torch-data-parallel-per-step [note] "so each step first replicates the whole model across the GPUs"
    optimizer.step();
  }
}

void trainWithOutputDevice(Net &model, torch::optim::SGD &optimizer,
                           torch::Tensor x,
                           const std::vector<torch::Device> &devices) {
  int step = 0;
  while (step++ < 100) {
    optimizer.zero_grad();
    auto out = data_parallel(model, x, devices, // expect: torch-data-parallel-per-step
                             torch::Device(torch::kCUDA, 0));
    out.mean().backward();
    optimizer.step();
  }
}

void trainDoWhile(torch::nn::Sequential &model, torch::optim::SGD &optimizer,
                  torch::Tensor x) {
  int step = 0;
  do {
    optimizer.zero_grad();
    data_parallel(model, x).sum().backward(); // expect: torch-data-parallel-per-step [note] "every parameter of 'model'"
    optimizer.step();
  } while (++step < 100);
}

void trainTwoDevices(Net &model, torch::optim::SGD &optimizer,
                     torch::Tensor x) {
  std::vector<torch::Device> devices{torch::Device(torch::kCUDA, 0),
                                     torch::Device(torch::kCUDA, 1)};
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    data_parallel(model, x, devices).sum().backward(); // expect: torch-data-parallel-per-step
    optimizer.step();
  }
}

torch::Tensor stepOnce(Net &model, torch::optim::SGD &optimizer,
                       torch::Tensor x) {
  optimizer.zero_grad();
  torch::Tensor loss = data_parallel(model, x).mean(); // expect: torch-data-parallel-per-step [note] "here on every iteration"
  loss.backward();
  optimizer.step();
  return loss.detach();
}

void trainThroughAStepFunction(Net &model, torch::optim::SGD &optimizer,
                               torch::Tensor x) {
  for (int step = 0; step < 100; ++step)
    stepOnce(model, optimizer, x); // expect-note: "called on every iteration of the loop here"
}

std::vector<torch::Tensor> inferFrames(Net &model,
                                       const std::vector<torch::Tensor> &frames) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> outputs;
  for (const torch::Tensor &frame : frames)
    outputs.push_back(data_parallel(model, frame)); // expect: torch-data-parallel-per-step [note] "data_parallel copies every parameter of 'model'"
  return outputs;
}

std::vector<torch::Tensor> inferIndexed(Net &model,
                                        const std::vector<torch::Tensor> &frames,
                                        std::vector<torch::Device> devices) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> outputs;
  for (size_t i = 0; i < frames.size(); ++i)
    outputs.push_back(data_parallel(model, frames[i], devices)); // expect: torch-data-parallel-per-step
  return outputs;
}

void nestedEpochs(Net &model, torch::optim::SGD &optimizer,
                  const std::vector<std::vector<torch::Tensor>> &epochs) {
  for (const auto &epoch : epochs)
    for (const torch::Tensor &batch : epoch) {
      optimizer.zero_grad();
      data_parallel(model, batch).sum().backward(); // expect: torch-data-parallel-per-step
      optimizer.step();
    }
}

void sequentialModel(torch::Tensor x, torch::optim::SGD &optimizer) {
  torch::nn::Sequential model(torch::nn::Linear(8, 8), torch::nn::ReLU());
  for (int step = 0; step < 10; ++step) {
    optimizer.zero_grad();
    data_parallel(model, x).sum().backward(); // expect: torch-data-parallel-per-step
    optimizer.step();
  }
}

// Negative cases.

void oneDevicePerStep(Net &model, torch::optim::SGD &optimizer,
                      torch::Tensor x) {
  const std::vector<torch::Device> single{torch::Device(torch::kCUDA, 0)};
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    // One device: the module is moved once and run, nothing is replicated.
    data_parallel(model, x, std::vector<torch::Device>{torch::kCUDA})
        .sum()
        .backward();
    data_parallel(model, x,
                  std::vector<torch::Device>{torch::Device(torch::kCUDA, 1)})
        .sum()
        .backward();
    data_parallel(model, x, single).sum().backward();
    data_parallel(model, x,
                  std::vector<torch::Device>(1, torch::Device(torch::kCUDA, 0)))
        .sum()
        .backward();
    optimizer.step();
  }
}

torch::Tensor evaluateOnce(Net &model, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  return data_parallel(model, x);
}

void evaluateAfterTraining(Net &model, torch::optim::SGD &optimizer,
                           torch::Tensor x) {
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    model->forward(x).sum().backward();
    optimizer.step();
  }
  torch::NoGradGuard no_grad;
  torch::Tensor all = data_parallel(model, x);
  evaluateOnce(model, x);
  for (const torch::Tensor &row : data_parallel(model, x).unbind(0))
    (void)row;
  for (torch::Tensor y = data_parallel(model, x); y.size(0) > 1;
       y = y.narrow(0, 0, y.size(0) / 2))
    (void)y;
  (void)all;
}

void replicatedOnce(Net &model, const std::vector<torch::Tensor> &frames,
                    const std::vector<torch::Device> &devices) {
  torch::NoGradGuard no_grad;
  // Replicas made once, then run on each frame.
  auto replicas = torch::nn::parallel::replicate(model, devices);
  for (const torch::Tensor &frame : frames) {
    std::vector<torch::Tensor> inputs = frame.chunk(devices.size());
    torch::nn::parallel::parallel_apply(replicas, inputs, devices);
  }
}
