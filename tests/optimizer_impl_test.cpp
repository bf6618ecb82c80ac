// Tip 5: the loop, foreach and fused step implementations agree; AdamW's decay is decoupled.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/train/optimizer_factory.h"

namespace speedbench {
namespace {

// Parameters after `steps` optimizer steps on a fixed quadratic-ish loss.
std::vector<torch::Tensor> train_parameters(const OptimizerConfig& config, const std::string& impl,
                                            int steps = 5) {
  torch::manual_seed(0);
  std::vector<torch::Tensor> params = {torch::randn({7, 5}).requires_grad_(),
                                       torch::randn({5}).requires_grad_()};
  auto target = torch::randn({7});
  auto optimizer = make_optimizer(config, params, impl);
  for (int i = 0; i < steps; ++i) {
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

}  // namespace
}  // namespace speedbench
