// torch-dataloader-no-workers in a program that never uses a GPU. Collating
// examples that are already in memory on the training thread keeps nothing
// waiting there, and workers would only compete with the step for the same
// cores: in-memory datasets (the library's and the program's own) are not
// reported. A dataset whose get() reads a file still is.
#include <torch/torch.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

using torch::data::transforms::Stack;

// Reads each example from a file when a batch asks for it.
struct RecordFile : torch::data::datasets::Dataset<RecordFile> {
  explicit RecordFile(std::string path) : path(std::move(path)) {}
  torch::data::Example<> get(size_t index) override {
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(index * 8 * sizeof(float)));
    std::vector<float> values(8);
    in.read(reinterpret_cast<char *>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(float)));
    return {torch::tensor(values),
            torch::tensor(static_cast<int64_t>(index % 2))};
  }
  torch::optional<size_t> size() const override { return 128; }
  std::string path;
};

// Decoded once, in the constructor: get() only reads what it holds.
struct Decoded : torch::data::datasets::Dataset<Decoded> {
  explicit Decoded(const std::string &path) {
    RecordFile file(path);
    for (size_t i = 0; i < *file.size(); ++i) {
      auto example = file.get(i);
      inputs.push_back(example.data);
      labels.push_back(example.target);
    }
  }
  torch::data::Example<> get(size_t index) override {
    return {inputs.at(index).clone(), labels.at(index).clone()};
  }
  torch::optional<size_t> size() const override { return inputs.size(); }
  std::vector<torch::Tensor> inputs, labels;
};

template <typename Loader> double mean_of(Loader &loader) {
  double sum = 0;
  int64_t count = 0;
  for (auto &batch : loader) {
    sum += batch.data.sum().template item<double>();
    count += batch.data.size(0);
  }
  return count ? sum / static_cast<double>(count) : 0.0;
}

void reads_a_file_per_example() {
  auto loader = torch::data::make_data_loader(RecordFile("records.bin").map(Stack<>()), 16); // expect: torch-dataloader-no-workers [warning] "data loader has no worker threads (make_data_loader(dataset, batch_size) means 0 workers), so every batch is read,"
  mean_of(*loader);
}

void decoded_in_the_constructor() {
  auto loader = torch::data::make_data_loader(Decoded("records.bin").map(Stack<>()), 16);
  mean_of(*loader);
}

void tensor_dataset() {
  auto loader = torch::data::make_data_loader(
      torch::data::datasets::TensorDataset(torch::rand({64, 8})), 16);
  for (auto &batch : *loader)
    (void)batch;
}

int main() {
  reads_a_file_per_example();
  decoded_in_the_constructor();
  tensor_dataset();
}
