// A loader of this program fills the batch it is given by reference, in a
// unit of its own: what it leaves there (tensors made on the host, or in
// page-locked memory) is what the training unit copies to the GPU. The
// other unit tells it through the summary of `next` and `stage`.
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <tuple>

using Batch = std::tuple<torch::Tensor, torch::Tensor>;

class FolderLoader {
public:
  explicit FolderLoader(std::size_t batch_size) : batch_size_(batch_size) {}
  /// The next batch into `batch`; false at the end of the epoch.
  bool next(Batch &batch);

private:
  std::size_t batch_size_;
  std::size_t position_ = 0;
};

/// A staging buffer in page-locked memory, for asynchronous copies.
void stage(torch::Tensor &buffer, std::size_t rows);
