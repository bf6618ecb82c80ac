// Tip 8, checkpointing: keep every activation for backward -> keep only segment boundaries and
// recompute each segment's activations during backward.
// Claim: O(sqrt(n)) memory for one extra forward; a 1000-layer ResNet went from 48 GB to 7 GB at
// +30% time (Chen et al., "Training Deep Nets with Sublinear Memory Cost", arXiv 1604.06174).
// Mechanism: a custom autograd function runs a chunk of model segments without recording a graph;
// in backward it restores the RNG state, recomputes the chunk with autograd on, and returns the
// gradients of its input and parameters. BatchNorm running statistics are restored after the
// recomputation, so they are updated once per step as without checkpointing.
#pragma once

#include <torch/types.h>

#include <functional>
#include <vector>

#include "models/resnet.h"

namespace speedbench {

// Runs `segment` on `input` under checkpointing. `parameters` are the segment's parameters (they
// receive gradients); `buffers` its running statistics (restored after the recompute).
torch::Tensor checkpoint(const std::function<torch::Tensor(const torch::Tensor&)>& segment,
                         const torch::Tensor& input, const std::vector<torch::Tensor>& parameters,
                         const std::vector<torch::Tensor>& buffers);

// A ResNet forward with every `segments_per_chunk` consecutive segments checkpointed
// (the classifier head runs normally).
torch::Tensor checkpointed_resnet_forward(models::ResNetImpl& net, const torch::Tensor& input,
                                          int64_t segments_per_chunk);

}  // namespace speedbench
