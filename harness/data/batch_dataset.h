// The LibTorch dataset that serves whole batches to torch::data's DataLoader: it gathers the
// requested rows of an ExampleSet and turns images into float inputs (scaled to [0,1],
// optionally normalized and augmented). Read-only after construction, so DataLoader worker
// threads may call it concurrently.
#pragma once

#include <torch/data/datasets/base.h>
#include <torch/data/example.h>

#include "harness/data/datasets.h"

namespace speedbench::data {

struct ImageTransform {
  bool is_image = true;   // false: text ids pass through untouched
  bool augment = false;   // random crop (pad 4) + horizontal flip
  bool normalize = false; // (x - mean) / std after scaling to [0,1]
  double mean = 0.0;
  double std = 1.0;
  uint64_t seed = 0;      // augmentation seed (mixed with the batch's indices)
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
  torch::Tensor to_inputs(torch::Tensor raw, bool augment, uint64_t augment_seed) const;

  ExampleSet examples_;
  ImageTransform transform_;
};

}  // namespace speedbench::data
