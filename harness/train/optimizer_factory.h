// Builds the optimizer a config names (SGD with momentum/nesterov, Adam with L2, AdamW with
// decoupled decay) in the step implementation of tip 5 (loop: LibTorch's torch::optim;
// foreach / fused: MultiTensorOptimizer), and sets its LR and momentum each step.
#pragma once

#include <torch/optim/optimizer.h>

#include <memory>
#include <vector>

#include "harness/config/train_config.h"

namespace speedbench {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& config,
                                                        std::vector<torch::Tensor> parameters,
                                                        const std::string& implementation = "loop");

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);
// SGD's momentum, or Adam/AdamW's beta1 (what 1cycle cycles).
void set_momentum(torch::optim::Optimizer& optimizer, const std::string& name, double momentum);

}  // namespace speedbench
