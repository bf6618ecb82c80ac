// The three data sources of TIPS.md's workloads, loaded into host tensors:
// - fashion_mnist: Debian's dataset-fashion-mnist IDX files (60k train, 10k test, 1x28x28, 10
//   classes);
// - fortunes: English text of Debian's fortunes package as character windows (next-char LM);
// - synthetic: random uint8 images of any shape with random labels (throughput runs).
#pragma once

#include <c10/core/Device.h>
#include <torch/types.h>

#include <string>

#include "harness/config/train_config.h"

namespace speedbench::data {

// Examples held on the host. Images: inputs uint8 [N, C, H, W], targets int64 [N].
// Text: inputs int64 [N, T], targets int64 [N, T] (the inputs shifted by one character).
struct ExampleSet {
  torch::Tensor inputs;
  torch::Tensor targets;
  int64_t size() const { return inputs.size(0); }
};

struct DatasetSplits {
  ExampleSet train;
  ExampleSet test;
  int64_t num_classes = 0;            // classes, or the character vocabulary size
  std::string source;                 // where the data came from (recorded)
  double pixel_mean = 0.0;            // images: training-set mean of pixel/255
  double pixel_std = 1.0;             // images: training-set std of pixel/255
  double unigram_entropy_bits = 0.0;  // text: entropy of the training characters, bits/char
};

// Loads what `config.dataset` names, cut to train_samples / test_samples when those are set.
DatasetSplits load_dataset(const DataConfig& config, int64_t seed);

// How many training examples load_dataset would give: synthetic data is counted without making
// it, the other datasets are loaded (so that one that is missing or corrupt throws here).
int64_t count_training_examples(const DataConfig& config, int64_t seed);

// data.on_device: both splits' examples moved to `device` (there the batches are gathered).
void move_examples_to(DatasetSplits& splits, torch::Device device);

// The folder a dataset is read from: config.root, else $SPEEDBENCH_FASHION_MNIST_DIR /
// $SPEEDBENCH_FORTUNES_DIR, else the Debian package's folder.
std::string dataset_folder(const DataConfig& config);

// The folder of the datasets' uncompressed copies (dataset_cache.h): $SPEEDBENCH_DATASET_CACHE,
// else $XDG_CACHE_HOME/speedbench/datasets, else $HOME/.cache/speedbench/datasets; "" (no copies)
// where $SPEEDBENCH_DATASET_CACHE is "off" or there is no home folder.
std::string dataset_cache_folder();

}  // namespace speedbench::data
