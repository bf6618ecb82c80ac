#include "harness/train/optimizer_factory.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

namespace speedbench {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& c,
                                                        std::vector<torch::Tensor> parameters) {
  if (c.name == "sgd") {
    return std::make_unique<torch::optim::SGD>(
        std::move(parameters), torch::optim::SGDOptions(c.lr)
                                   .momentum(c.momentum)
                                   .nesterov(c.nesterov)
                                   .weight_decay(c.weight_decay));
  }
  if (c.name == "adam") {
    return std::make_unique<torch::optim::Adam>(
        std::move(parameters), torch::optim::AdamOptions(c.lr)
                                   .betas({c.beta1, c.beta2})
                                   .eps(c.eps)
                                   .weight_decay(c.weight_decay));
  }
  return std::make_unique<torch::optim::AdamW>(
      std::move(parameters), torch::optim::AdamWOptions(c.lr)
                                 .betas({c.beta1, c.beta2})
                                 .eps(c.eps)
                                 .weight_decay(c.weight_decay));
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

}  // namespace speedbench
