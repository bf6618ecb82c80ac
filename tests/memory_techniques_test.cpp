// Tips 8, 9, 11, 16: the memory techniques keep the numbers and lower the bytes.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/config/config_loader.h"
#include "harness/measure/cpu_memory_tracker.h"
#include "harness/techniques/checkpointing.h"
#include "harness/techniques/zero_grad.h"
#include "harness/train/train_loop.h"
#include "models/recurrent.h"
#include "models/resnet.h"

namespace speedbench {
namespace {

using measure::CpuMemoryTracker;

struct StepResult {
  std::vector<torch::Tensor> grads;
  std::vector<torch::Tensor> buffers;
  int64_t peak_bytes = 0;
};

// One forward/backward of ResNet-20 in train mode, plain or checkpointed.
StepResult resnet_step(bool checkpointed, int64_t segments_per_chunk = 1) {
  torch::manual_seed(3);
  models::ResNet net(models::cifar_resnet_options(20, {16, 32, 64}));
  auto inputs = torch::randn({32, 1, 28, 28});
  auto targets = torch::randint(0, 10, {32}, torch::kInt64);
  auto& tracker = CpuMemoryTracker::install();
  tracker.reset_peak();
  const auto base = tracker.current_bytes();
  auto logits = checkpointed ? checkpointed_resnet_forward(*net, inputs, segments_per_chunk)
                             : net->forward(inputs);
  torch::nn::functional::cross_entropy(logits, targets).backward();
  StepResult result;
  result.peak_bytes = tracker.peak_bytes() - base;
  for (const auto& p : net->parameters()) result.grads.push_back(p.grad().clone());
  for (const auto& b : net->buffers()) result.buffers.push_back(b.clone());
  return result;
}

TEST(CheckpointingTest, GradientsEqualThePlainRunAndPeakBytesDrop) {
  const auto plain = resnet_step(false);
  const auto checkpointed = resnet_step(true, /*segments_per_chunk=*/3);
  ASSERT_EQ(plain.grads.size(), checkpointed.grads.size());
  for (size_t i = 0; i < plain.grads.size(); ++i) {
    EXPECT_TRUE(torch::allclose(plain.grads[i], checkpointed.grads[i], 1e-5, 1e-6))
        << "param " << i;
  }
  // BatchNorm running statistics were updated once, as in the plain run (not again by the
  // recomputation).
  for (size_t i = 0; i < plain.buffers.size(); ++i) {
    EXPECT_TRUE(torch::allclose(plain.buffers[i].to(torch::kDouble),
                                checkpointed.buffers[i].to(torch::kDouble), 1e-6, 1e-7))
        << "buffer " << i;
  }
  EXPECT_LT(checkpointed.peak_bytes, plain.peak_bytes * 7 / 10)
      << "plain " << plain.peak_bytes << " B, checkpointed " << checkpointed.peak_bytes << " B";
}

TEST(CheckpointingTest, InputGradientFlowsThroughACheckpoint) {
  auto weight = torch::randn({4, 4}).requires_grad_();
  auto x = torch::randn({2, 4}).requires_grad_();
  auto segment = [&](const torch::Tensor& in) { return torch::tanh(torch::matmul(in, weight)); };
  checkpoint(segment, x, {weight}, {}).sum().backward();
  const auto x_grad = x.grad().clone(), w_grad = weight.grad().clone();
  x.mutable_grad().reset();
  weight.mutable_grad().reset();
  segment(x).sum().backward();
  EXPECT_TRUE(torch::allclose(x_grad, x.grad()));
  EXPECT_TRUE(torch::allclose(w_grad, weight.grad()));
}

// Row-GRU gradients (no BatchNorm, so micro-batches see the same function) for a batch of 64.
std::vector<torch::Tensor> gru_gradients(int64_t micro_batches, int64_t* peak_bytes) {
  torch::manual_seed(1);
  models::RecurrentOptions options;
  options.cell = "gru";
  options.hidden = 64;
  models::RowRnnClassifier net(options);
  auto inputs = torch::randn({64, 1, 28, 28});
  auto targets = torch::randint(0, 10, {64}, torch::kInt64);
  auto& tracker = CpuMemoryTracker::install();
  tracker.reset_peak();
  const auto base = tracker.current_bytes();
  auto input_slices = inputs.chunk(micro_batches), target_slices = targets.chunk(micro_batches);
  for (int64_t k = 0; k < micro_batches; ++k) {
    auto loss =
        torch::nn::functional::cross_entropy(net->forward(input_slices[k]), target_slices[k]);
    (loss / static_cast<double>(micro_batches)).backward();
  }
  *peak_bytes = tracker.peak_bytes() - base;
  std::vector<torch::Tensor> grads;
  for (const auto& p : net->parameters()) grads.push_back(p.grad().clone());
  return grads;
}

TEST(GradAccumulationTest, MicroBatchesGiveTheFullBatchGradientWithLessMemory) {
  int64_t full_peak = 0, accumulated_peak = 0;
  const auto full = gru_gradients(1, &full_peak);
  const auto accumulated = gru_gradients(4, &accumulated_peak);
  for (size_t i = 0; i < full.size(); ++i) {
    EXPECT_TRUE(torch::allclose(full[i], accumulated[i], 1e-5, 1e-7)) << "param " << i;
  }
  EXPECT_LT(accumulated_peak, full_peak / 2)
      << "full " << full_peak << " B, 4 micro-batches " << accumulated_peak << " B";
}

TEST(ZeroGradTest, SetToNoneLeavesGradientsUndefinedAndFreesTheirBytes) {
  auto& tracker = CpuMemoryTracker::install();  // before the gradients exist
  models::ResNet net(models::cifar_resnet_options(8, {16, 32, 64}));
  const auto parameters = net->parameters();
  torch::nn::functional::cross_entropy(net->forward(torch::randn({4, 1, 28, 28})),
                                       torch::randint(0, 10, {4}, torch::kInt64))
      .backward();
  int64_t parameter_bytes = 0;
  for (const auto& p : parameters) parameter_bytes += p.numel() * 4;

  const auto with_grads = tracker.current_bytes();
  clear_gradients(parameters, /*set_to_none=*/false);
  for (const auto& p : parameters) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().abs().sum().item<float>(), 0.0f);
  }
  EXPECT_EQ(tracker.current_bytes(), with_grads);  // zeroed in place: still held

  clear_gradients(parameters, /*set_to_none=*/true);
  for (const auto& p : parameters) EXPECT_FALSE(p.grad().defined());
  EXPECT_EQ(with_grads - tracker.current_bytes(), parameter_bytes);  // every gradient byte freed
}

TrainConfig tiny_run(const nlohmann::json& techniques) {
  return train_config_from_json({{"data", {{"train_samples", 256}, {"test_samples", 500}}},
                                 {"batch_size", 64},
                                 {"warmup_steps", 0},  // 4 steps: a memory test times none
                                 {"eval_batch_size", 250},
                                 {"progress_every_s", 0},
                                 {"deterministic", true},
                                 {"techniques", techniques}},
                                "test");
}

// Through train(): from the second step on, zeroed gradients are held through the forward pass,
// while gradients set to none are allocated again only by the backward pass. Same arithmetic.
TEST(ZeroGradTest, ATrainingRunWithSetToNonePeaksLowerWithTheSameLosses) {
  const auto zeroed = train(tiny_run(nlohmann::json::object()));
  const auto set_to_none = train(tiny_run({{"zero_grad_none", true}}));
  ASSERT_EQ(zeroed.status, RunStatus::kOk) << zeroed.message;
  ASSERT_EQ(set_to_none.status, RunStatus::kOk) << set_to_none.message;
  EXPECT_EQ(zeroed.metrics.step_losses, set_to_none.metrics.step_losses);
  // Above the resident bytes: the first run's model is still alive during the second.
  const int64_t saved = zeroed.metrics.training_bytes() - set_to_none.metrics.training_bytes();
  EXPECT_GT(saved, 0);
  EXPECT_LE(saved, zeroed.metrics.parameter_count * 4) << "more than the gradients' bytes";
}

// Through train(): the run's forward pass is checkpointed (the activations inside each segment
// are recomputed in backward, not kept), so its training memory is lower, and it trains alike.
TEST(CheckpointingTest, ACheckpointedTrainingRunHoldsLessMemoryAndTrainsAlike) {
  const auto plain = train(tiny_run(nlohmann::json::object()));
  const auto checkpointed = train(tiny_run({{"checkpointing", true}}));
  ASSERT_EQ(plain.status, RunStatus::kOk) << plain.message;
  ASSERT_EQ(checkpointed.status, RunStatus::kOk) << checkpointed.message;
  const auto plain_bytes = plain.metrics.training_bytes();
  const auto checkpointed_bytes = checkpointed.metrics.training_bytes();
  EXPECT_LT(checkpointed_bytes, plain_bytes * 95 / 100)
      << "plain " << plain_bytes << " B, checkpointed " << checkpointed_bytes << " B";
  const auto& expected = plain.metrics.step_losses;
  const auto& losses = checkpointed.metrics.step_losses;
  ASSERT_EQ(losses.size(), expected.size());
  for (size_t i = 0; i < losses.size(); ++i) EXPECT_NEAR(losses[i], expected[i], 1e-4) << i;
}

// Through train(): 4 micro-batches per step hold a quarter of the batch's activations at a time
// (0.27-0.31x of the training memory in the CPU reference run).
TEST(GradAccumulationTest, AnAccumulatingTrainingRunHoldsUnderHalfTheMemory) {
  const auto whole = train(tiny_run(nlohmann::json::object()));
  const auto accumulated = train(tiny_run({{"grad_accumulation", 4}}));
  ASSERT_EQ(whole.status, RunStatus::kOk) << whole.message;
  ASSERT_EQ(accumulated.status, RunStatus::kOk) << accumulated.message;
  EXPECT_LT(accumulated.metrics.training_bytes(), whole.metrics.training_bytes() / 2)
      << "whole batch " << whole.metrics.training_bytes() << " B, 4 micro-batches "
      << accumulated.metrics.training_bytes() << " B";
}

TEST(EvalNoGradTest, NoGraphMeansLessEvaluationMemoryAndTheSameAccuracy) {
  const auto recording = train(tiny_run(nlohmann::json::object()));
  const auto no_grad = train(tiny_run({{"eval_no_grad", true}}));
  ASSERT_EQ(recording.status, RunStatus::kOk);
  EXPECT_EQ(recording.metrics.final_test_accuracy, no_grad.metrics.final_test_accuracy);
  EXPECT_LT(no_grad.metrics.eval_peak_allocated_bytes * 2,
            recording.metrics.eval_peak_allocated_bytes)
      << "with autograd " << recording.metrics.eval_peak_allocated_bytes << " B, no_grad "
      << no_grad.metrics.eval_peak_allocated_bytes << " B";
}

}  // namespace
}  // namespace speedbench
