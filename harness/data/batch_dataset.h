// The LibTorch dataset that serves whole batches to torch::data's DataLoader: it gathers the
// requested rows of an ExampleSet into a host buffer (pixels scaled to [0,1]), turns the buffer
// into a tensor (copied, or wrapped without a copy: tip 12), then optionally augments and
// normalizes (tip 17) images, and pins the batch (tip 2). With `on_device` the ExampleSet is on the
// run's device and the rows are gathered and scaled there instead, by index_select: no host batch
// at all. Read-only after construction, so DataLoader worker threads may call it concurrently.
#pragma once

#include <torch/data/datasets/base.h>
#include <torch/data/example.h>

#include "harness/data/datasets.h"

namespace speedbench::data {

struct ImageTransform {
  bool is_image = true;    // false: text ids pass through untouched
  bool augment = false;    // random crop (pad 4) + horizontal flip
  bool normalize = false;  // (x - mean) / std after scaling to [0,1]
  double mean = 0.0;
  double std = 1.0;
  uint64_t seed = 0;              // augmentation seed (mixed with the batch's indices)
  bool wrap_host_buffer = false;  // tip 12: from_blob the host batch instead of copying it
  bool on_device = false;         // data.on_device: gather on the examples' device
  // Tip 2: get_batch copies each batch into page-locked memory, on the thread that assembles it
  // (a loader worker when there are workers, as PyTorch's pin-memory thread keeps it off the
  // training loop). Needs CUDA. Evaluation's slices stay pageable.
  bool pin_memory = false;
};

class BatchDataset
    : public torch::data::datasets::BatchDataset<BatchDataset, torch::data::Example<>> {
 public:
  BatchDataset(ExampleSet examples, ImageTransform transform);

  torch::data::Example<> get_batch(c10::ArrayRef<size_t> indices) override;
  std::optional<size_t> size() const override;

  // Rows [begin, begin+count) in order, transformed (evaluation uses this, without a loader).
  torch::data::Example<> slice(int64_t begin, int64_t count) const;

 private:
  // The rows' inputs (images scaled to [0,1]) and targets, before augmentation and normalization.
  torch::data::Example<> gather(c10::ArrayRef<int64_t> rows) const;
  torch::Tensor gather_host_inputs(c10::ArrayRef<int64_t> rows) const;
  torch::Tensor finish_inputs(torch::Tensor inputs, bool augment, uint64_t augment_seed) const;

  ExampleSet examples_;
  ImageTransform transform_;
};

}  // namespace speedbench::data
