// Beyond the list, cuda_graphs: eager kernel launches -> the whole training step (forward,
// backward, optimizer step) captured once as a CUDA graph and replayed every step.
// Claim: cuts the CPU's launch overhead, which dominates small, launch-bound steps (PyTorch blog
// "Accelerating PyTorch with CUDA Graphs": up to 1.12x-6x on small models).
// The mechanism follows PyTorch's "whole network capture": warm up on a side stream, capture
// with gradients unset so backward allocates them in the graph's pool, then per step copy the
// batch into static input tensors and replay. The captured step bakes in the LR and the shapes,
// so config validation allows it only with a constant LR, fixed batches, and an optimizer whose
// state lives on the device (SGD, or Adam/AdamW with the fused step); amp bf16 autocasts inside
// the graph. The warmup's real optimizer steps on the first batch (kCaptureWarmupSteps) are not
// in the run's step count. CUDA-only: the implementation is in harness/cuda/ and is compiled in
// CUDA builds only.
#pragma once

#include <torch/optim/optimizer.h>

#include <memory>

#include "harness/train/workload.h"

namespace speedbench {

// Real optimizer steps on the first batch before the capture, as in PyTorch's example.
inline constexpr int kCaptureWarmupSteps = 3;

class CapturedTrainingStep {
 public:
  virtual ~CapturedTrainingStep() = default;
  // Copies the batch into the graph's inputs, replays, and returns the step's loss (a device
  // scalar owned by the graph: read or copy it before the next run()).
  virtual torch::Tensor run(const torch::Tensor& inputs, const torch::Tensor& targets) = 0;
};

// Warms up and captures one training step with batches shaped like `inputs` / `targets`.
// Throws std::runtime_error in builds without CUDA.
std::unique_ptr<CapturedTrainingStep> capture_training_step(Workload& workload,
                                                            torch::optim::Optimizer& optimizer,
                                                            const TrainConfig& config,
                                                            const torch::Tensor& inputs,
                                                            const torch::Tensor& targets);

}  // namespace speedbench
