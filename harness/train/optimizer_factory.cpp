#include "harness/train/optimizer_factory.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include "harness/techniques/multi_tensor_optimizer.h"

namespace speedbench {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& c,
                                                        std::vector<torch::Tensor> parameters,
                                                        const std::string& implementation) {
  if (implementation != "loop") {
    return std::make_unique<MultiTensorOptimizer>(std::move(parameters), c, implementation);
  }
  if (c.name == "sgd") {
    return std::make_unique<torch::optim::SGD>(std::move(parameters),
                                               torch::optim::SGDOptions(c.lr)
                                                   .momentum(c.momentum)
                                                   .nesterov(c.nesterov)
                                                   .weight_decay(c.weight_decay));
  }
  if (c.name == "adam") {
    return std::make_unique<torch::optim::Adam>(std::move(parameters),
                                                torch::optim::AdamOptions(c.lr)
                                                    .betas({c.beta1, c.beta2})
                                                    .eps(c.eps)
                                                    .weight_decay(c.weight_decay));
  }
  return std::make_unique<torch::optim::AdamW>(std::move(parameters),
                                               torch::optim::AdamWOptions(c.lr)
                                                   .betas({c.beta1, c.beta2})
                                                   .eps(c.eps)
                                                   .weight_decay(c.weight_decay));
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

void set_momentum(torch::optim::Optimizer& optimizer, const std::string& name, double momentum) {
  for (auto& group : optimizer.param_groups()) {
    if (name == "sgd") {
      static_cast<torch::optim::SGDOptions&>(group.options()).momentum(momentum);
    } else if (name == "adam") {
      auto& options = static_cast<torch::optim::AdamOptions&>(group.options());
      options.betas({momentum, std::get<1>(options.betas())});
    } else {
      auto& options = static_cast<torch::optim::AdamWOptions&>(group.options());
      options.betas({momentum, std::get<1>(options.betas())});
    }
  }
}

}  // namespace speedbench
