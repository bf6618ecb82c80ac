#include "harness/techniques/multi_tensor_optimizer.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>
#include <torch/torch.h>

#include <cmath>

namespace speedbench {

namespace {

std::unique_ptr<torch::optim::OptimizerOptions> options_for(const OptimizerConfig& c) {
  if (c.name == "sgd") {
    return std::make_unique<torch::optim::SGDOptions>(torch::optim::SGDOptions(c.lr)
                                                          .momentum(c.momentum)
                                                          .nesterov(c.nesterov)
                                                          .weight_decay(c.weight_decay));
  }
  if (c.name == "adam") {
    return std::make_unique<torch::optim::AdamOptions>(torch::optim::AdamOptions(c.lr)
                                                           .betas({c.beta1, c.beta2})
                                                           .eps(c.eps)
                                                           .weight_decay(c.weight_decay));
  }
  return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(c.lr)
                                                          .betas({c.beta1, c.beta2})
                                                          .eps(c.eps)
                                                          .weight_decay(c.weight_decay));
}

}  // namespace

MultiTensorOptimizer::MultiTensorOptimizer(std::vector<torch::Tensor> parameters,
                                           const OptimizerConfig& config,
                                           std::string implementation)
    : torch::optim::Optimizer({torch::optim::OptimizerParamGroup(std::move(parameters))},
                              options_for(config)),
      config_(config),
      implementation_(std::move(implementation)) {}

torch::Tensor MultiTensorOptimizer::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  torch::Tensor loss = closure ? closure() : torch::Tensor();
  std::vector<torch::Tensor> params, grads;
  for (auto& p : param_groups().front().params()) {
    if (!p.grad().defined()) continue;  // a parameter this step did not reach
    params.push_back(p);
    grads.push_back(p.grad());
  }
  if (params.empty()) return loss;
  if (config_.name == "sgd") {
    sgd_step(params, grads);
  } else {
    adam_step(params, grads);
  }
  first_step_ = false;
  return loss;
}

void MultiTensorOptimizer::sgd_step(std::vector<torch::Tensor>& params,
                                    std::vector<torch::Tensor>& grads) {
  auto& options = static_cast<torch::optim::SGDOptions&>(param_groups().front().options());
  const double lr = options.lr(), momentum = options.momentum(), wd = options.weight_decay();
  const bool nesterov = options.nesterov();
  if (implementation_ == "fused") {
    if (momentum_buffers_.empty() && momentum != 0.0) {
      for (const auto& p : params) momentum_buffers_.push_back(torch::empty_like(p));
    }
    at::_fused_sgd_(params, grads, momentum_buffers_, wd, momentum, lr, /*dampening=*/0.0, nesterov,
                    /*maximize=*/false, /*is_first_step=*/first_step_);
    return;
  }
  // foreach: torch.optim.sgd._multi_tensor_sgd
  if (wd != 0.0) grads = at::_foreach_add(grads, params, wd);
  if (momentum != 0.0) {
    if (momentum_buffers_.empty()) {
      for (const auto& g : grads) momentum_buffers_.push_back(g.clone().detach());
    } else {
      at::_foreach_mul_(momentum_buffers_, momentum);
      at::_foreach_add_(momentum_buffers_, grads, 1.0);
    }
    grads = nesterov ? at::_foreach_add(grads, momentum_buffers_, momentum) : momentum_buffers_;
  }
  at::_foreach_add_(params, grads, -lr);
}

void MultiTensorOptimizer::adam_step(std::vector<torch::Tensor>& params,
                                     std::vector<torch::Tensor>& grads) {
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, wd = 0;
  if (config_.name == "adam") {
    auto& o = static_cast<torch::optim::AdamOptions&>(param_groups().front().options());
    lr = o.lr(), beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas()), eps = o.eps(),
    wd = o.weight_decay();
  } else {
    auto& o = static_cast<torch::optim::AdamWOptions&>(param_groups().front().options());
    lr = o.lr(), beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas()), eps = o.eps(),
    wd = o.weight_decay();
  }
  if (exp_avgs_.empty()) {
    for (const auto& p : params) {
      exp_avgs_.push_back(torch::zeros_like(p));
      exp_avg_sqs_.push_back(torch::zeros_like(p));
      state_steps_.push_back(
          torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat32).device(p.device())));
    }
  }
  const bool decoupled = config_.name == "adamw";
  if (implementation_ == "fused") {
    at::_foreach_add_(state_steps_, 1.0);
    if (decoupled) {
      at::_fused_adamw_(params, grads, exp_avgs_, exp_avg_sqs_, at::TensorList(), state_steps_, lr,
                        beta1, beta2, wd, eps, /*amsgrad=*/false, /*maximize=*/false);
    } else {
      at::_fused_adam_(params, grads, exp_avgs_, exp_avg_sqs_, at::TensorList(), state_steps_, lr,
                       beta1, beta2, wd, eps, /*amsgrad=*/false, /*maximize=*/false);
    }
    return;
  }
  // foreach: torch.optim.adam._multi_tensor_adam (every tensor shares the step count)
  steps_ += 1;
  if (decoupled) {
    at::_foreach_mul_(params, 1.0 - lr * wd);
  } else if (wd != 0.0) {
    grads = at::_foreach_add(grads, params, wd);
  }
  at::_foreach_lerp_(exp_avgs_, grads, 1.0 - beta1);
  at::_foreach_mul_(exp_avg_sqs_, beta2);
  at::_foreach_addcmul_(exp_avg_sqs_, grads, grads, 1.0 - beta2);
  const double bias_correction1 = 1.0 - std::pow(beta1, steps_);
  const double bias_correction2 = 1.0 - std::pow(beta2, steps_);
  auto denominators = at::_foreach_sqrt(exp_avg_sqs_);
  at::_foreach_div_(denominators, std::sqrt(bias_correction2));
  at::_foreach_add_(denominators, eps);
  at::_foreach_addcdiv_(params, exp_avgs_, denominators, -lr / bias_correction1);
}

}  // namespace speedbench
