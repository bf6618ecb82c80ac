// Tip 5, optimizer: a per-tensor optimizer step (LibTorch's torch::optim, "loop") -> one
// multi-tensor step over all parameters ("foreach": ATen's _foreach_* ops) or a fused kernel
// ("fused": _fused_sgd_ / _fused_adam_ / _fused_adamw_, which have CPU and CUDA kernels in
// LibTorch 2.x). The other half of the tip, Adam + L2 -> AdamW (decoupled decay), is
// optimizer.name. Claims: fused Adam 10-15% end to end vs torch AdamW (pytorch/pytorch#71274);
// fused step 2.75x but ~3% end to end (deepmd-kit#4463); AdamW generalizes better than Adam+L2
// (Loshchilov & Hutter, arXiv 1711.05101).
// The math is that of torch.optim's _multi_tensor_* / _fused_* paths, so all three
// implementations agree to rounding (a test checks it).
#pragma once

#include <torch/optim/optimizer.h>

#include "harness/config/train_config.h"

namespace speedbench {

class MultiTensorOptimizer : public torch::optim::Optimizer {
 public:
  // implementation: "foreach" or "fused"; config.name: sgd | adam | adamw. The LR (and
  // momentum / beta1) are read from the param group's options each step, so schedules apply.
  MultiTensorOptimizer(std::vector<torch::Tensor> parameters, const OptimizerConfig& config,
                       std::string implementation);

  torch::Tensor step(LossClosure closure = nullptr) override;

 private:
  void sgd_step(std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& grads);
  void adam_step(std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& grads);

  OptimizerConfig config_;
  std::string implementation_;
  bool first_step_ = true;
  std::vector<torch::Tensor> momentum_buffers_;                      // sgd
  std::vector<torch::Tensor> exp_avgs_, exp_avg_sqs_, state_steps_;  // adam / adamw
  int64_t steps_ = 0;
};

}  // namespace speedbench
