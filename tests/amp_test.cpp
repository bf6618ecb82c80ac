// Tip 4: autocast really computes in bf16; the gradient scaler skips non-finite steps and adapts
// its scale; a training run really autocasts; the CPU's bf16 RNN probe says what a real step
// finds.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/config/config_loader.h"
#include "harness/techniques/amp.h"
#include "harness/train/train_loop.h"

namespace speedbench {
namespace {

TEST(AmpTest, AutocastRunsLinearAndConvInBf16OnTheCpu) {
  torch::nn::Linear linear(8, 4);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 2, 3));
  auto x = torch::randn({2, 8});
  auto image = torch::randn({1, 1, 5, 5});
  {
    AutocastGuard guard(c10::DeviceType::CPU, torch::kBFloat16);
    EXPECT_EQ(linear->forward(x).scalar_type(), torch::kBFloat16);
    EXPECT_EQ(conv->forward(image).scalar_type(), torch::kBFloat16);
    EXPECT_EQ(torch::mm(x, x.t()).scalar_type(), torch::kBFloat16);  // fp32 inputs, bf16 math
  }
  EXPECT_EQ(linear->forward(x).scalar_type(), torch::kFloat32);  // off again outside
}

TEST(AmpTest, ScalerUnscalesFiniteGradientsAndSteps) {
  GradScaler scaler(torch::kCPU, /*initial_scale=*/1024.0);
  auto p = torch::ones({3}).requires_grad_();
  scaler.scale_loss((p * 2).sum()).backward();
  EXPECT_TRUE(torch::allclose(p.grad(), torch::full({3}, 2048.0)));
  scaler.unscale({p});
  EXPECT_TRUE(torch::allclose(p.grad(), torch::full({3}, 2.0)));
  EXPECT_TRUE(scaler.gradients_finite());
  scaler.update();
  EXPECT_EQ(scaler.scale(), 1024.0);  // growth only after growth_interval finite steps
  EXPECT_EQ(scaler.skipped_steps(), 0);
}

TEST(AmpTest, InjectedInfSkipsTheStepAndHalvesTheScale) {
  GradScaler scaler(torch::kCPU, /*initial_scale=*/1024.0);
  auto p = torch::ones({3}).requires_grad_();
  scaler.scale_loss((p * 2).sum()).backward();
  p.mutable_grad()[1] = std::numeric_limits<float>::infinity();
  scaler.unscale({p});
  EXPECT_FALSE(scaler.gradients_finite());
  scaler.update();
  EXPECT_EQ(scaler.scale(), 512.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
}

TEST(AmpTest, ScaleDoublesAfterGrowthIntervalFiniteSteps) {
  GradScaler scaler(torch::kCPU, /*initial_scale=*/8.0, /*growth_factor=*/2.0,
                    /*backoff_factor=*/0.5, /*growth_interval=*/3);
  auto p = torch::ones({2}).requires_grad_();
  for (int step = 0; step < 3; ++step) {
    p.mutable_grad().reset();
    scaler.scale_loss(p.sum()).backward();
    scaler.unscale({p});
    ASSERT_TRUE(scaler.gradients_finite());
    scaler.update();
  }
  EXPECT_EQ(scaler.scale(), 16.0);
}

// Through train(): a bf16 run keeps its activations in bf16, so its training memory above the
// resident data and model is well under the fp32 run's (0.52x for ResNet-8 in the CPU reference
// run), and its arithmetic differs.
TEST(AmpTest, ATrainingRunUnderBf16AutocastHoldsLessActivationMemory) {
  auto run = [](const std::string& amp) {
    return train(train_config_from_json({{"data", {{"train_samples", 128}, {"test_samples", 100}}},
                                         {"batch_size", 64},
                                         {"warmup_steps", 0},  // 2 steps, none to spare
                                         {"eval_batch_size", 100},
                                         {"progress_every_s", 0},
                                         {"techniques", {{"amp", amp}}}},
                                        "test"));
  };
  const auto fp32 = run("off"), bf16 = run("bf16");
  ASSERT_EQ(fp32.status, RunStatus::kOk) << fp32.message;
  ASSERT_EQ(bf16.status, RunStatus::kOk) << bf16.message;
  EXPECT_LT(bf16.metrics.training_bytes(), fp32.metrics.training_bytes() * 8 / 10)
      << "fp32 " << fp32.metrics.training_bytes() << " B, bf16 " << bf16.metrics.training_bytes()
      << " B";
  EXPECT_NE(fp32.metrics.step_losses, bf16.metrics.step_losses);
}

// The probe must say what a run of the smoke suite's size finds: on a CPU with bf16 RNN kernels
// (Intel with AVX-512/AMX) both run; on an AMD EPYC without AVX-512 the LSTM fails both ways and
// the GRU runs both ways. A probe that disagreed would mark runnable runs not applicable, or let
// crashing ones start.
bool bf16_rnn_step_runs(const std::string& cell) {
  try {
    const AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
    const auto rows = torch::randn({28, 16, 28});  // a Fashion-MNIST row RNN's batch
    torch::Tensor output;
    if (cell == "gru") {
      output = std::get<0>(torch::nn::GRU(torch::nn::GRUOptions(28, 128))->forward(rows));
    } else {
      output = std::get<0>(torch::nn::LSTM(torch::nn::LSTMOptions(28, 128))->forward(rows));
    }
    output.to(torch::kFloat32).sum().backward();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

TEST(AmpTest, TheBf16RnnProbeAgreesWithARunSizedStepOnThisCpu) {
  for (const std::string cell : {"lstm", "gru"}) {
    const bool probe = cpu_runs_bf16_rnn(cell);
    EXPECT_EQ(probe, bf16_rnn_step_runs(cell)) << cell;
    EXPECT_EQ(cpu_runs_bf16_rnn(cell), probe) << cell << ": asked again";
    // A run's config is not applicable exactly when the probe fails for its cell.
    TrainConfig config;
    config.device = "cpu";
    config.model.arch = "row_rnn";
    config.model.cell = cell;
    config.techniques.amp = "bf16";
    EXPECT_EQ(amp_not_applicable_reason(config).empty(), probe) << cell;
    config.techniques.amp = "off";
    EXPECT_EQ(amp_not_applicable_reason(config), "") << cell;
  }
  TrainConfig resnet;
  resnet.device = "cpu";
  resnet.model.arch = "resnet";
  resnet.techniques.amp = "bf16";
  EXPECT_EQ(amp_not_applicable_reason(resnet), "");  // convolutions have bf16 kernels
}

}  // namespace
}  // namespace speedbench
