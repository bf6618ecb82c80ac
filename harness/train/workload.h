// A workload = a dataset and the model that trains on it, built from a TrainConfig.
#pragma once

#include <torch/nn/modules/container/any.h>

#include <memory>

#include "harness/config/train_config.h"
#include "harness/data/batch_dataset.h"
#include "harness/data/datasets.h"
#include "models/resnet.h"

namespace speedbench {

struct Workload {
  torch::nn::AnyModule model;  // forward(inputs) -> logits ([B, classes] or [B, T, vocabulary])
  std::shared_ptr<torch::nn::Module> module;   // the same model, for parameters and train()/eval()
  std::shared_ptr<models::ResNetImpl> resnet;  // set for ResNet models (segment-wise techniques)
  data::DatasetSplits data;
  data::ImageTransform transform;  // how raw batches become inputs

  // The forward used for training steps: the plain one, or the checkpointed one (tip 8).
  torch::Tensor train_forward(const torch::Tensor& inputs, const TrainConfig& config);
};

// Loads the data, then builds the model sized to it (input channels, classes, vocabulary).
Workload build_workload(const TrainConfig& config);

// Builds only the model for inputs of `input_shape` ({C, H, W} or {T}) and `outputs` classes.
torch::nn::AnyModule build_model(const TrainConfig& config, const std::vector<int64_t>& input_shape,
                                 int64_t outputs);

// Model FLOPs of one forward pass for one example of `input_shape` (models/flops.h).
double forward_flops_per_sample(const TrainConfig& config, const std::vector<int64_t>& input_shape,
                                int64_t outputs);

int64_t count_parameters(const torch::nn::Module& module);

}  // namespace speedbench
