// A workload = a dataset and the model that trains on it, built from a TrainConfig.
#pragma once

#include <torch/nn/modules/container/any.h>

#include <memory>

#include "harness/config/train_config.h"
#include "harness/data/batch_dataset.h"
#include "harness/data/datasets.h"

namespace speedbench {

struct Workload {
  torch::nn::AnyModule model;  // forward(inputs) -> logits ([B, classes] or [B, T, vocabulary])
  std::shared_ptr<torch::nn::Module> module;  // the same model, for parameters and train()/eval()
  data::DatasetSplits data;
  data::ImageTransform transform;              // how raw batches become inputs
};

// Loads the data, then builds the model sized to it (input channels, classes, vocabulary).
Workload build_workload(const TrainConfig& config);

// Builds only the model for inputs of `input_shape` ({C, H, W} or {T}) and `outputs` classes.
torch::nn::AnyModule build_model(const TrainConfig& config, const std::vector<int64_t>& input_shape,
                                 int64_t outputs);

int64_t count_parameters(const torch::nn::Module& module);

}  // namespace speedbench
