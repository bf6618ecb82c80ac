// Builds the optimizer a config names (SGD with momentum/nesterov, Adam with L2, AdamW with
// decoupled decay) and sets its learning rate each step.
#pragma once

#include <torch/optim/optimizer.h>

#include <memory>
#include <vector>

#include "harness/config/train_config.h"

namespace speedbench {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& config,
                                                        std::vector<torch::Tensor> parameters);

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

}  // namespace speedbench
