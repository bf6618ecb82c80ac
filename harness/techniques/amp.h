// Tip 4, amp: fp32 -> autocast to bf16 (CPU and CUDA) or fp16 with a dynamic gradient scaler
// (CUDA). Claim: ResNet-50 on one A100 938 -> 2470 img/s, 2.63x (NVIDIA DeepLearningExamples
// resnet50v1.5 README); "up to 3x" (PyTorch tuning guide); hlb-CIFAR10 2.19x, memory 1.1 -> 0.6 GB.
// On a CPU without native bf16 units the same autocast makes matmuls slower: that is a result.
#pragma once

#include <torch/types.h>

#include <string>
#include <vector>

#include "harness/config/train_config.h"

namespace speedbench {

// Autocast for its lifetime: eligible ops (matmul, conv, linear) run in `dtype`.
class AutocastGuard {
 public:
  AutocastGuard(c10::DeviceType device, c10::ScalarType dtype);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  c10::DeviceType device_;
  bool previous_enabled_;
  c10::ScalarType previous_dtype_;
};

// The dynamic loss scaler of fp16 training (torch.amp.GradScaler's algorithm): the loss is
// multiplied by `scale` before backward; gradients are unscaled and checked for inf/NaN; a step
// with non-finite gradients is skipped and the scale backs off by 0.5; after `growth_interval`
// finite steps in a row the scale doubles.
class GradScaler {
 public:
  explicit GradScaler(const torch::Device& device, double initial_scale = 65536.0,
                      double growth_factor = 2.0, double backoff_factor = 0.5,
                      int64_t growth_interval = 2000);

  torch::Tensor scale_loss(const torch::Tensor& loss) const;
  // Divides gradients by the scale in place and records whether any was inf/NaN.
  void unscale(const std::vector<torch::Tensor>& parameters);
  // True when the unscaled gradients were all finite (a host sync, counted).
  bool gradients_finite() const;
  // Adjusts the scale from this step's finding; call once per step after unscale().
  void update();

  double scale() const;  // a host read, for tests and records
  int64_t skipped_steps() const { return skipped_steps_; }

 private:
  torch::Tensor scale_;           // float32 [1] on the device
  torch::Tensor growth_tracker_;  // int32 [1]: finite steps in a row
  torch::Tensor found_inf_;       // float32 [1]: 1 when this step's gradients were not finite
  double growth_factor_, backoff_factor_;
  int64_t growth_interval_;
  mutable int64_t skipped_steps_ = 0;
};

// Whether this CPU runs a recurrent `cell` ("lstm" or "gru") under bf16 autocast: LibTorch
// hands it to oneDNN, which has no bf16 RNN kernels on some x86 CPUs (seen on an AMD EPYC
// without AVX-512: "could not create a primitive descriptor for the LSTM forward propagation
// primitive"). Found by running one tiny step, once per process.
bool cpu_runs_bf16_rnn(const std::string& cell);

// Why amp cannot run `config` on this machine beyond its device (the registry's part), or "":
// bf16 on a CPU recurrent model whose cell cpu_runs_bf16_rnn() says this CPU cannot run.
std::string amp_not_applicable_reason(const TrainConfig& config);

}  // namespace speedbench
