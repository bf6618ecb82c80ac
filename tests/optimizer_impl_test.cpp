// Tip 5: the loop, foreach and fused step implementations agree; AdamW's decay is decoupled.
// Tip 1: the momentum a 1cycle schedule sets each step reaches every optimizer's step.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>

#include "harness/train/optimizer_factory.h"

namespace speedbench {
namespace {

// Parameters after `steps` optimizer steps on a fixed quadratic-ish loss.
// `before_step` (when given) changes the optimizer before each step, as a schedule does.
std::vector<torch::Tensor> train_parameters(
    const OptimizerConfig& config, const std::string& impl, int steps = 5,
    const std::function<void(torch::optim::Optimizer&)>& before_step = {}) {
  torch::manual_seed(0);
  std::vector<torch::Tensor> params = {torch::randn({7, 5}).requires_grad_(),
                                       torch::randn({5}).requires_grad_()};
  auto target = torch::randn({7});
  auto optimizer = make_optimizer(config, params, impl);
  for (int i = 0; i < steps; ++i) {
    if (before_step) before_step(*optimizer);
    optimizer->zero_grad();
    auto loss = (torch::matmul(params[0], params[1]) - target).pow(2).sum() + params[0].abs().sum();
    loss.backward();
    optimizer->step();
  }
  return params;
}

void expect_same(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b,
                 const std::string& what) {
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(torch::allclose(a[i], b[i], /*rtol=*/1e-5, /*atol=*/1e-6))
        << what << " tensor " << i << " max diff " << (a[i] - b[i]).abs().max().item<double>();
  }
}

OptimizerConfig optimizer(const std::string& name, double weight_decay) {
  OptimizerConfig c;
  c.name = name;
  c.lr = name == "sgd" ? 0.01 : 0.003;
  c.weight_decay = weight_decay;
  if (name == "sgd") c.nesterov = true;
  return c;
}

TEST(OptimizerImplTest, LoopForeachAndFusedAgree) {
  for (const std::string name : {"sgd", "adam", "adamw"}) {
    const auto config = optimizer(name, 0.01);
    const auto loop = train_parameters(config, "loop");
    expect_same(loop, train_parameters(config, "foreach"), name + " foreach");
    expect_same(loop, train_parameters(config, "fused"), name + " fused");
    // And the parameters really moved.
    EXPECT_FALSE(torch::allclose(loop[0], train_parameters(config, "loop", 0)[0])) << name;
  }
}

TEST(OptimizerImplTest, PlainSgdWithoutMomentumAgrees) {
  auto config = optimizer("sgd", 0.0);
  config.nesterov = false;
  config.momentum = 0.0;
  const auto loop = train_parameters(config, "loop");
  expect_same(loop, train_parameters(config, "foreach"), "sgd foreach");
  expect_same(loop, train_parameters(config, "fused"), "sgd fused");
}

TEST(OptimizerImplTest, AdamwDecayIsDecoupledFromTheGradient) {
  // Same lr, betas and decay: Adam adds wd*p to the gradient (then normalizes it away in part),
  // AdamW shrinks p directly by lr*wd. The results differ.
  const auto adam = train_parameters(optimizer("adam", 0.1), "loop");
  const auto adamw = train_parameters(optimizer("adamw", 0.1), "loop");
  EXPECT_GT((adam[0] - adamw[0]).abs().max().item<double>(), 1e-4);
  // With no decay the two are the same algorithm.
  expect_same(train_parameters(optimizer("adam", 0.0), "loop"),
              train_parameters(optimizer("adamw", 0.0), "loop"), "adam vs adamw without decay");
}

// 1cycle cycles SGD's momentum or Adam's beta1 (as PyTorch's OneCycleLR does): set each step,
// it must be what the step uses, in every implementation, and leave beta2 alone.
TEST(OptimizerImplTest, TheMomentumSetBeforeAStepIsTheOneItUses) {
  for (const std::string name : {"sgd", "adam", "adamw"}) {
    auto started_at_085 = optimizer(name, 0.01);
    started_at_085.momentum = started_at_085.beta1 = 0.85;
    const auto set_to_085 = [&](torch::optim::Optimizer& opt) { set_momentum(opt, name, 0.85); };
    for (const std::string impl : {"loop", "foreach", "fused"}) {
      const auto what = name + " " + impl;
      expect_same(train_parameters(optimizer(name, 0.01), impl, 5, set_to_085),
                  train_parameters(started_at_085, impl), what);
      // The default (0.9) trains differently: the check above can fail.
      EXPECT_FALSE(torch::allclose(train_parameters(optimizer(name, 0.01), impl)[0],
                                   train_parameters(started_at_085, impl)[0]))
          << what;
      auto opt = make_optimizer(optimizer(name, 0.01), {torch::zeros({2}).requires_grad_()}, impl);
      set_momentum(*opt, name, 0.85);
      const auto& options = opt->param_groups()[0].options();
      if (name == "adam") {
        const auto& adam = static_cast<const torch::optim::AdamOptions&>(options);
        EXPECT_EQ(std::get<1>(adam.betas()), 0.999) << what << ": beta2 kept";
      } else if (name == "adamw") {
        const auto& adamw = static_cast<const torch::optim::AdamWOptions&>(options);
        EXPECT_EQ(std::get<1>(adamw.betas()), 0.999) << what << ": beta2 kept";
      }
    }
  }
}

}  // namespace
}  // namespace speedbench
