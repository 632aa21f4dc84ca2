// torch-unsynchronized-timing: a host clock read around GPU work with no wait
// for the GPU before the interval ends. The work is only queued when the
// clock is read again, so the program reports how long the launch took, not
// the work. An interval is a difference of two clock values (std::chrono's
// clocks, clock(), gettimeofday(), clock_gettime()), each traced back to the
// reads that gave it; whether a wait comes between the last GPU work and the
// end is answered on the function's CFG. A wait is .item(), .cpu(),
// .to(kCPU), printing a GPU tensor, an explicit synchronize (torch::cuda,
// cudaDeviceSynchronize, a stream's), or a call of a program function that
// does one. Work on the CPU is synchronous: nothing to report.
#include <torch/script.h>
#include <torch/torch.h>

#include <chrono>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include <sys/time.h>

struct Net : torch::nn::Module {
  Net() { fc = register_module("fc", torch::nn::Linear(512, 512)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                     : torch::Device(torch::kCPU);
}

void report(double ms) { std::cout << ms << " ms\n"; }

// Defined in another unit: what it does with the tensors is not known here.
void draw_detections(const std::vector<torch::Tensor> &detections);

void wait_for(const torch::Tensor &out) { std::cout << out.sum() << "\n"; }

// --- positives -------------------------------------------------------------

void time_forward(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  auto start = std::chrono::steady_clock::now();
  auto out = net.forward(x);
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
  auto end = std::chrono::steady_clock::now(); // expect: torch-unsynchronized-timing [note] "the interval ends before the GPU finishes the work it times, so it measures the launch of that work, not the work"
  report(std::chrono::duration<double, std::milli>(end - start).count());
  std::cout << out.sum().item<float>() << "\n";
}

void time_inline_end(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  net.to(torch::kCUDA); // expect: torch-unchecked-cuda
  x = x.to(torch::kCUDA); // expect: torch-unchecked-cuda
  auto start = std::chrono::high_resolution_clock::now();
  net.forward(x);
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::high_resolution_clock::now() - start) // expect: torch-unsynchronized-timing
                  .count();
  report(ms);
}

void time_each_frame(const std::string &path,
                     const std::vector<torch::Tensor> &frames) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  at::globalContext().setBenchmarkCuDNN(true);
  torch::jit::script::Module module = torch::jit::load(path, device); // expect: torch-cudnn-benchmark-off [note] "is a TorchScript module run on the GPU with cuDNN's autotuner off"
  for (const torch::Tensor &frame : frames) {
    torch::Tensor input = frame.to(device);
    auto t0 = std::chrono::steady_clock::now();
    auto result = module.forward({input}).toTensor();
    if (torch::cuda::is_available())
      torch::cuda::synchronize();
    auto t1 = std::chrono::steady_clock::now(); // expect: torch-unsynchronized-timing
    report(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
}

void time_with_clock(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  std::clock_t begin = std::clock();
  auto out = net.forward(x);
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
  std::clock_t finish = std::clock(); // expect: torch-unsynchronized-timing
  report(1000.0 * double(finish - begin) / CLOCKS_PER_SEC);
}

void time_with_gettimeofday(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  struct timeval before, after;
  gettimeofday(&before, nullptr);
  auto out = net.forward(x);
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
  gettimeofday(&after, nullptr); // expect: torch-unsynchronized-timing
  report((after.tv_sec - before.tv_sec) * 1000.0 +
         (after.tv_usec - before.tv_usec) / 1000.0);
}

void time_with_clock_gettime(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  net.forward(x);
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
  clock_gettime(CLOCK_MONOTONIC, &b); // expect: torch-unsynchronized-timing
  report((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
}

void time_training_step(Net &net, torch::optim::SGD &optimizer,
                        torch::Tensor x, torch::Tensor y) {
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  y = y.to(device);
  auto start = std::chrono::steady_clock::now();
  optimizer.zero_grad();
  auto loss = torch::mse_loss(net.forward(x), y);
  loss.backward();
  optimizer.step();
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
  auto stop = std::chrono::steady_clock::now(); // expect: torch-unsynchronized-timing
  report(std::chrono::duration<double, std::milli>(stop - start).count());
}

void time_in_a_branch(Net &net, torch::Tensor x, bool verbose) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  auto start = std::chrono::steady_clock::now();
  auto out = net.forward(x);
  if (verbose)
    std::cout << out << "\n";
  // Without verbose, nothing waits: that path reports the launch.
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
  auto end = std::chrono::steady_clock::now(); // expect: torch-unsynchronized-timing
  report(std::chrono::duration<double>(end - start).count());
}

void time_reused_start(Net &net, std::vector<torch::Tensor> batches) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  std::chrono::steady_clock::time_point start;
  for (torch::Tensor &batch : batches) {
    batch = batch.to(device);
    start = std::chrono::steady_clock::now();
    net.forward(batch);
    if (torch::cuda::is_available())
      torch::cuda::synchronize();
    auto end = std::chrono::steady_clock::now(); // expect: torch-unsynchronized-timing
    report(std::chrono::duration<double>(end - start).count());
  }
}

void time_after_a_sync_then_more_work(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  auto start = std::chrono::steady_clock::now();
  auto first = net.forward(x);
  float value = first.sum().item<float>();
  auto second = net.forward(first); // queued after the wait: not waited for
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
  auto end = std::chrono::steady_clock::now(); // expect: torch-unsynchronized-timing
  report(std::chrono::duration<double>(end - start).count() + value);
}

// One variable pair timing two sections: the second read into 't0' starts
// a new interval, so only the first, around the GPU work, is reported.
void two_sections(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  auto t0 = std::chrono::steady_clock::now();
  auto out = net.forward(x);
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
  auto t1 = std::chrono::steady_clock::now(); // expect: torch-unsynchronized-timing
  report(std::chrono::duration<double>(t1 - t0).count());
  t0 = std::chrono::steady_clock::now();
  std::vector<float> buffer(1 << 20, 0.5f);
  t1 = std::chrono::steady_clock::now();
  report(std::chrono::duration<double>(t1 - t0).count() + buffer[0]);
}

// --- negatives -------------------------------------------------------------

void synchronized_before_the_end(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  auto start = std::chrono::steady_clock::now();
  auto out = net.forward(x);
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
  auto end = std::chrono::steady_clock::now();
  report(std::chrono::duration<double, std::milli>(end - start).count());
}

void result_read_before_the_end(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  auto start = std::chrono::steady_clock::now();
  float top = net.forward(x).max().item<float>();
  auto end = std::chrono::steady_clock::now();
  report(std::chrono::duration<double>(end - start).count() + top);
}

void result_copied_to_the_host(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  auto start = std::chrono::steady_clock::now();
  torch::Tensor host = net.forward(x).cpu();
  auto end = std::chrono::steady_clock::now();
  report(std::chrono::duration<double>(end - start).count());
}

void waited_in_a_helper(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  auto start = std::chrono::steady_clock::now();
  auto out = net.forward(x);
  wait_for(out);
  auto end = std::chrono::steady_clock::now();
  report(std::chrono::duration<double>(end - start).count());
}

void timed_on_the_cpu(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  auto start = std::chrono::steady_clock::now();
  auto out = net.forward(x);
  auto end = std::chrono::steady_clock::now();
  report(std::chrono::duration<double>(end - start).count());
}

void loaded_module_of_unknown_device(const std::string &path,
                                     torch::Tensor frame) {
  // Its tensors are where they were saved from: the program does not say.
  torch::NoGradGuard no_grad;
  torch::jit::script::Module module = torch::jit::load(path);
  auto start = std::chrono::steady_clock::now();
  auto out = module.forward({frame}).toTensor();
  auto end = std::chrono::steady_clock::now();
  report(std::chrono::duration<double>(end - start).count());
}

void gpu_work_outside_the_interval(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  auto out = net.forward(x);
  auto start = std::chrono::steady_clock::now();
  std::vector<float> host(16, 1.0f);
  auto end = std::chrono::steady_clock::now();
  report(std::chrono::duration<double>(end - start).count());
  std::cout << out.sum().item<float>() << "\n";
}

void timestamps_not_an_interval(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  auto started = std::chrono::system_clock::now();
  auto out = net.forward(x);
  auto logged = std::chrono::system_clock::now();
  std::cout << std::chrono::system_clock::to_time_t(started) << " "
            << std::chrono::system_clock::to_time_t(logged) << "\n";
}

void synchronized_stream(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  x = x.to(device);
  std::clock_t begin = std::clock();
  auto out = net.forward(x);
  std::cout << out << "\n";
  std::clock_t finish = std::clock();
  report(double(finish - begin));
}

// Per frame, timed with the wait it needs: torch-sync-in-loop leaves alone
// a synchronize that ends a timed interval.
void per_iteration_with_sync(Net &net, std::vector<torch::Tensor> batches) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  for (torch::Tensor &batch : batches) {
    batch = batch.to(device);
    auto t0 = std::chrono::steady_clock::now();
    auto out = net.forward(batch);
    torch::cuda::synchronize();
    auto t1 = std::chrono::steady_clock::now();
    report(std::chrono::duration<double>(t1 - t0).count());
  }
}

// The GPU idle when the interval starts and done when it ends, each wait
// guarded by the device the program chose: the interval measures the work,
// and torch-sync-in-loop reports neither wait.
void timed_per_sample(Net &net, std::vector<torch::Tensor> samples) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  double total = 0;
  for (torch::Tensor &sample : samples) {
    torch::Tensor image = sample.to(device);
    if (!device.is_cpu()) torch::cuda::synchronize();
    auto start = std::chrono::system_clock::now();
    torch::Tensor output = net.forward(image);
    if (!device.is_cpu()) torch::cuda::synchronize();
    auto end = std::chrono::system_clock::now();
    total += std::chrono::duration_cast<std::chrono::microseconds>(end - start)
                 .count();
  }
  report(total);
}

// Frames per second of a detector whose results another unit draws: drawing
// reads them on the host, which this unit cannot see, so no wait is missing
// as far as it can tell.
void frames_per_second(Net &net, std::vector<torch::Tensor> frames) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  auto start = std::chrono::steady_clock::now();
  for (torch::Tensor &frame : frames) {
    std::vector<torch::Tensor> detections{net.forward(frame.to(device))};
    draw_detections(detections);
    auto end = std::chrono::steady_clock::now();
    report(std::chrono::duration<double>(end - start).count());
    start = end;
  }
}

// A time-based log interval in a serving loop: the difference is compared
// with a period, not reported as a duration.
void log_every_ten_seconds(Net &net, std::vector<torch::Tensor> requests) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  net.to(device);
  auto last_log = std::chrono::steady_clock::now();
  for (torch::Tensor &request : requests) {
    auto answer = net.forward(request.to(device));
    if (std::chrono::steady_clock::now() - last_log > std::chrono::seconds(10)) {
      std::cout << "still training\n";
      last_log = std::chrono::steady_clock::now();
    }
  }
}

void interval_without_gpu_work(torch::Tensor x) {
  auto start = std::chrono::steady_clock::now();
  auto y = x.matmul(x);
  auto end = std::chrono::steady_clock::now();
  report(std::chrono::duration<double>(end - start).count());
}

// A batch-inference command line: one model, every file named on the
// command line, each timed up to its result's copy to the host, which waits.
int batch_cli(int argc, char **argv) {
  torch::NoGradGuard no_grad;
  torch::Device device = pick_device();
  at::globalContext().setBenchmarkCuDNN(true);
  torch::jit::Module module = torch::jit::load(argv[1], device); // expect: torch-cudnn-benchmark-off [note] "is a TorchScript module run on the GPU with cuDNN's autotuner off"
  for (int i = 2; i < argc; ++i) {
    torch::Tensor image = torch::rand({1, 3, 224, 224}, device);
    auto start = std::chrono::steady_clock::now();
    torch::Tensor scores = module.forward({image}).toTensor().cpu();
    auto end = std::chrono::steady_clock::now();
    std::cout << argv[i] << ": " << scores.argmax(1).item<int64_t>() << " in "
              << std::chrono::duration<double>(end - start).count() << " s\n";
  }
  return 0;
}

int main(int argc, char **argv) { return batch_cli(argc, argv); }
