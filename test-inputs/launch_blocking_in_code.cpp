// torch-launch-blocking-in-code: the program sets CUDA_LAUNCH_BLOCKING to a
// true value itself, so every kernel launch waits for the GPU; set after
// CUDA has started, it does nothing at all. "0", reads, values chosen at run
// time, and settings behind a debug flag or in debug builds are fine.
#include <torch/torch.h>

#include <cstdlib>
#include <string>

void at_the_start() {
  setenv("CUDA_LAUNCH_BLOCKING", "1", 1); // expect: torch-launch-blocking-in-code [warning] "'CUDA_LAUNCH_BLOCKING' is set to '1', so every kernel launch waits until the GPU has run it and the CPU can no longer queue work ahead of the GPU" // expect-note: "it is a debugging aid: set it in the environment of a debugging run, or keep it to debug builds"
}

void without_overwriting() {
  setenv("CUDA_LAUNCH_BLOCKING", "1", 0); // expect: torch-launch-blocking-in-code [warning]
}

void with_putenv() {
  putenv(const_cast<char *>("CUDA_LAUNCH_BLOCKING=1")); // expect: torch-launch-blocking-in-code [warning] "is set to '1'"
}

void spelled_true() {
  setenv("CUDA_LAUNCH_BLOCKING", "true", 1); // expect: torch-launch-blocking-in-code [warning] "is set to 'true'"
}

void through_the_global_namespace() {
  ::setenv("CUDA_LAUNCH_BLOCKING", "1", 1); // expect: torch-launch-blocking-in-code
}

struct Trainer {
  Trainer() {
    setenv("CUDA_LAUNCH_BLOCKING", "1", 1); // expect: torch-launch-blocking-in-code
  }
};

void set_then_train(torch::nn::Linear &model) {
  setenv("CUDA_LAUNCH_BLOCKING", "1", 1); // expect: torch-launch-blocking-in-code [warning]
  if (torch::cuda::is_available())
    model->to(torch::kCUDA);
}

void after_availability_check() {
  bool gpu = torch::cuda::is_available(); // expect-note: "CUDA is initialised here"
  setenv("CUDA_LAUNCH_BLOCKING", "1", 1); // expect: torch-launch-blocking-in-code [warning] "'CUDA_LAUNCH_BLOCKING' is set after CUDA was initialised, so it has no effect and kernel launches stay asynchronous" // expect-note: "CUDA reads it once, at initialisation: to debug with synchronous launches, set it in the environment"
  (void)gpu;
}

void after_model_moved(torch::nn::Linear &model) {
  if (!torch::cuda::is_available())
    return;
  model->to(torch::kCUDA);
  putenv(const_cast<char *>("CUDA_LAUNCH_BLOCKING=1")); // expect: torch-launch-blocking-in-code [warning] "set after CUDA was initialised"
}

void debug_option_too_late(bool debug) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  // A debug option that sets it here does not do what it says either.
  if (debug)
    setenv("CUDA_LAUNCH_BLOCKING", "1", 1); // expect: torch-launch-blocking-in-code [warning] "has no effect"
}

void enable_synchronous_launches() {
  setenv("CUDA_LAUNCH_BLOCKING", "1", 1); // expect: torch-launch-blocking-in-code [warning] "has no effect"
}

void setup_after_a_query() {
  auto count = torch::cuda::device_count();
  enable_synchronous_launches();
  (void)count;
}

// Not reported.

void switched_off() {
  setenv("CUDA_LAUNCH_BLOCKING", "0", 1);
  putenv(const_cast<char *>("CUDA_LAUNCH_BLOCKING=0"));
}

bool read_only() {
  const char *value = std::getenv("CUDA_LAUNCH_BLOCKING");
  return value && std::string(value) == "1";
}

void behind_a_debug_flag(bool debug) {
  if (debug)
    setenv("CUDA_LAUNCH_BLOCKING", "1", 1);
}

void in_debug_builds() {
#ifndef NDEBUG
  setenv("CUDA_LAUNCH_BLOCKING", "1", 1);
#endif
}

void chosen_at_run_time(const std::string &value) {
  setenv("CUDA_LAUNCH_BLOCKING", value.c_str(), 1);
}

void other_variables() {
  setenv("OMP_NUM_THREADS", "1", 1);
  setenv("CUDA_MODULE_LOADING", "LAZY", 1);
}

int main() {}
