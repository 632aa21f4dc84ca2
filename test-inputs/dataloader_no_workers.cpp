// torch-dataloader-no-workers: data loaders that load and collate every batch
// on the training thread. Loaders with workers, and options this program does
// not show (a parameter, a helper's result), are fine.
#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

using torch::data::DataLoaderOptions;
using torch::data::transforms::Stack;

// A dataset whose get() does real work: it stands for reading and decoding
// an image file.
struct ImageFolder : torch::data::datasets::Dataset<ImageFolder> {
  explicit ImageFolder(std::vector<std::string> files)
      : files(std::move(files)) {}
  torch::data::Example<> get(size_t index) override {
    torch::Tensor image = torch::rand({3, 64, 64});
    return {image, torch::tensor(static_cast<int64_t>(index % 10))};
  }
  torch::optional<size_t> size() const override { return files.size(); }
  std::vector<std::string> files;
};

auto images() {
  return ImageFolder(std::vector<std::string>(256, "image.png")).map(Stack<>());
}

template <typename Loader> float train(Loader &loader) {
  float seen = 0;
  for (auto &batch : loader)
    seen += static_cast<float>(batch.data.size(0));
  return seen;
}

void shorthand_batch_size() {
  auto loader = torch::data::make_data_loader(images(), 64); // expect: torch-dataloader-no-workers [warning] "data loader has no worker threads (make_data_loader(dataset, batch_size) means 0 workers), so every batch is read," // expect-note: "use 4 workers (one per spare core"
  train(*loader);
}

void options_without_workers() {
  auto loader = torch::data::make_data_loader(images(), DataLoaderOptions().batch_size(32)); // expect: torch-dataloader-no-workers
  train(*loader);
}

void options_constructed_with_batch_size() {
  auto loader = torch::data::make_data_loader(images(), DataLoaderOptions(32)); // expect: torch-dataloader-no-workers
  train(*loader);
}

void options_left_out() {
  auto loader = torch::data::make_data_loader(images()); // expect: torch-dataloader-no-workers
  train(*loader);
}

void workers_set_to_zero() {
  auto loader = torch::data::make_data_loader( // expect: torch-dataloader-no-workers
      images(), DataLoaderOptions().batch_size(64).workers(0));
  train(*loader);
}

void options_variable_without_workers() {
  auto options = DataLoaderOptions().batch_size(16).drop_last(true);
  auto loader = torch::data::make_data_loader(images(), options); // expect: torch-dataloader-no-workers
  train(*loader);
}

void options_variable_set_to_zero_later() {
  DataLoaderOptions options(8);
  options.workers(0);
  auto loader = torch::data::make_data_loader(images(), options); // expect: torch-dataloader-no-workers
  train(*loader);
}

void sequential_sampler_shorthand() {
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(images(), 64); // expect: torch-dataloader-no-workers
  train(*loader);
}

void braced_options() {
  auto loader = torch::data::make_data_loader(images(), DataLoaderOptions{128}); // expect: torch-dataloader-no-workers
  train(*loader);
}

void drop_last_only() {
  auto loader = torch::data::make_data_loader(images(), DataLoaderOptions(64).drop_last(true)); // expect: torch-dataloader-no-workers
  train(*loader);
}

// In memory already: a batch is only indexing and stacking, so a note.
void mnist_in_memory() {
  auto loader = torch::data::make_data_loader(torch::data::datasets::MNIST("data").map(Stack<>()), 64); // expect: torch-dataloader-no-workers
  train(*loader);
}

void tensor_dataset_in_memory() {
  auto loader = torch::data::make_data_loader(torch::data::datasets::TensorDataset(torch::rand({512, 8})), 32); // expect: torch-dataloader-no-workers
  for (auto &batch : *loader)
    (void)batch;
}

// The program's own dataset, in memory: get() only reads the tensors it
// holds. A note too, since this program feeds a GPU (see main).
struct Preloaded : torch::data::datasets::Dataset<Preloaded> {
  Preloaded(torch::Tensor inputs, torch::Tensor targets)
      : inputs(std::move(inputs)), targets(std::move(targets)) {}
  torch::data::Example<> get(size_t index) override {
    return {inputs[static_cast<int64_t>(index)].clone(),
            targets[static_cast<int64_t>(index)]};
  }
  torch::optional<size_t> size() const override {
    return static_cast<size_t>(inputs.size(0));
  }
  torch::Tensor inputs, targets;
};

void own_dataset_in_memory() {
  auto loader = torch::data::make_data_loader(Preloaded(torch::rand({512, 8}), torch::rand({512})).map(Stack<>()), 32); // expect: torch-dataloader-no-workers [note] "so batches are collated on the training thread between steps" // expect-note: "the Preloaded dataset is in memory, so this costs little, but 2 workers"
  train(*loader);
}

// Fine: the loader has workers, or its options come from elsewhere.

void with_workers() {
  auto loader = torch::data::make_data_loader(images(), DataLoaderOptions().batch_size(64).workers(2));
  train(*loader);
}

void workers_first_in_chain() {
  auto loader = torch::data::make_data_loader(images(), DataLoaderOptions().workers(4).batch_size(64));
  train(*loader);
}

void workers_from_parameter(size_t workers) {
  auto loader = torch::data::make_data_loader(images(), DataLoaderOptions(64).workers(workers));
  train(*loader);
}

void workers_from_hardware() {
  auto loader = torch::data::make_data_loader(
      images(), DataLoaderOptions(64).workers(std::thread::hardware_concurrency()));
  train(*loader);
}

void options_variable_with_workers() {
  auto options = DataLoaderOptions(32).workers(4);
  auto loader = torch::data::make_data_loader(images(), options);
  train(*loader);
}

void options_variable_workers_set_later() {
  DataLoaderOptions options;
  options.batch_size(64).workers(3);
  auto loader = torch::data::make_data_loader(images(), options);
  train(*loader);
}

void options_from_caller(const DataLoaderOptions &options) {
  auto loader = torch::data::make_data_loader(images(), options);
  train(*loader);
}

DataLoaderOptions tuned_options();

void options_from_helper() {
  auto loader = torch::data::make_data_loader(images(), tuned_options());
  train(*loader);
}

constexpr size_t kWorkers = 3;

void workers_from_constant() {
  auto loader = torch::data::make_data_loader(images(), DataLoaderOptions(64).workers(kWorkers));
  train(*loader);
}

const DataLoaderOptions kSharedOptions = DataLoaderOptions(64).workers(2);

void options_from_global() {
  auto loader = torch::data::make_data_loader(images(), kSharedOptions);
  train(*loader);
}

// The loader's type, named through decltype, builds no loader.
using ImageLoader = decltype(torch::data::make_data_loader(images(), 64));

DataLoaderOptions tuned_options() { return DataLoaderOptions(64).workers(2); }

int main() {
  torch::Device device = torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                                     : torch::Device(torch::kCPU);
  std::cout << "training on " << device << "\n";
  shorthand_batch_size();
  options_without_workers();
  options_constructed_with_batch_size();
  options_left_out();
  workers_set_to_zero();
  options_variable_without_workers();
  options_variable_set_to_zero_later();
  sequential_sampler_shorthand();
  braced_options();
  drop_last_only();
  mnist_in_memory();
  tensor_dataset_in_memory();
  own_dataset_in_memory();
  with_workers();
  workers_first_in_chain();
  workers_from_parameter(2);
  workers_from_hardware();
  options_variable_with_workers();
  options_variable_workers_set_later();
  options_from_caller(DataLoaderOptions(32).workers(2));
  options_from_helper();
  workers_from_constant();
  options_from_global();
}
