// Tips 3, 6, 7, 10, 13, 14, 15, beyond the list: channels_last, tf32 (step-level techniques).
#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/measure/sync_counter.h"
#include "harness/suite/run_one.h"
#include "harness/techniques/channels_last.h"
#include "harness/techniques/debug_mode.h"
#include "harness/techniques/grad_clipping.h"
#include "harness/techniques/loss_reader.h"
#include "harness/techniques/max_batch.h"
#include "harness/train/train_loop.h"
#include "models/resnet.h"

namespace speedbench {
namespace {

TrainConfig small_run(const nlohmann::json& techniques, int64_t train_samples = 512) {
  return train_config_from_json(
      {{"data", {{"train_samples", train_samples}, {"test_samples", 200}}},
       {"batch_size", 32},
       {"warmup_steps", 0},
       {"eval_batch_size", 200},
       {"progress_every_s", 0},
       {"deterministic", true},
       {"techniques", techniques}},
      "test");
}

TEST(SyncAvoidanceTest, ReadsEveryNStepsAndLogsTheSameLosses) {
  measure::reset_host_sync_count();
  LossReader reader(4);
  std::vector<double> read;
  for (int i = 0; i < 10; ++i) {
    auto values = reader.add(torch::tensor(static_cast<double>(i)));
    read.insert(read.end(), values.begin(), values.end());
  }
  EXPECT_EQ(read.size(), 8u);  // two reads of four
  auto rest = reader.flush();
  EXPECT_EQ(rest, (std::vector<double>{8, 9}));
  EXPECT_EQ(measure::host_sync_count(), 3);

  const auto every_step = train(small_run(nlohmann::json::object()));
  const auto every_8 = train(small_run({{"sync_avoidance", true}, {"sync_every_steps", 8}}));
  ASSERT_EQ(every_step.metrics.steps, 16);
  EXPECT_EQ(every_step.metrics.step_losses, every_8.metrics.step_losses);
  // 16 loss reads + 1 evaluation read, vs 2 loss reads + 1 evaluation read.
  EXPECT_EQ(every_step.metrics.host_syncs, 17);
  EXPECT_EQ(every_8.metrics.host_syncs, 3);
}

TEST(MaxBatchTest, SearchFindsTheLargestBatchThatFits) {
  // A synthetic memory model: 1000 bytes per example plus 5000 fixed.
  auto probe = [](int64_t budget) {
    return [budget](int64_t batch) {
      BatchProbe p{batch, 5000 + 1000 * batch, 5000 + 1000 * batch <= budget};
      return p;
    };
  };
  EXPECT_EQ(search_max_batch(probe(5000 + 1000 * 300), 32, 4096).batch, 300);
  EXPECT_EQ(search_max_batch(probe(5000 + 1000 * 300 + 999), 32, 4096).batch, 300);
  EXPECT_EQ(search_max_batch(probe(1 << 30), 32, 4096).batch, 4096);  // capped by the limit
  EXPECT_EQ(search_max_batch(probe(1000), 32, 4096).batch, 0);        // nothing fits
}

TEST(MaxBatchTest, RealTrainingStepSearchIsDeterministicAndTight) {
  auto config = small_run(nlohmann::json::object(), 1024);
  auto workload = build_workload(config);
  const auto at_96 = probe_training_step(config, workload, 96, int64_t{1} << 40, torch::kCPU);
  ASSERT_GT(at_96.peak_bytes, 0);
  const auto budget = at_96.peak_bytes;
  auto measure = [&](int64_t batch) {
    return probe_training_step(config, workload, batch, budget, torch::kCPU);
  };
  const auto first = search_max_batch(measure, 32, 1024);
  const auto second = search_max_batch(measure, 32, 1024);
  EXPECT_EQ(first.batch, second.batch);
  EXPECT_GE(first.batch, 96);
  EXPECT_TRUE(measure(first.batch).fits);
  EXPECT_FALSE(measure(first.batch + 1).fits);
}

TEST(MaxBatchTest, TrainingUsesTheFoundBatch) {
  auto config = small_run(nlohmann::json::object(), 1024);
  auto workload = build_workload(config);
  const auto budget =
      probe_training_step(config, workload, 64, int64_t{1} << 40, torch::kCPU).peak_bytes;
  const auto outcome =
      train(small_run({{"max_batch", {{"enabled", true}, {"budget_bytes", budget}}}}, 1024));
  ASSERT_EQ(outcome.status, RunStatus::kOk) << outcome.message;
  EXPECT_GE(outcome.metrics.batch_size, 64);
  EXPECT_GT(outcome.metrics.max_batch_probes, 1);
}

// A budget that not even the configured batch fits: the run is out of memory (status oom), and
// its message says by how much; not a crash.
TEST(MaxBatchTest, ABudgetBelowTheConfiguredBatchIsAnOutOfMemoryRun) {
  auto config = small_run({{"max_batch", {{"enabled", true}, {"budget_bytes", 1000}}}}, 1024);
  const auto workload = build_workload(config);
  const auto needed =
      probe_training_step(config, workload, config.batch_size, int64_t{1} << 40, torch::kCPU)
          .peak_bytes;
  const auto record = execute_run(config, RunIdentity{});
  EXPECT_EQ(record.status, RunStatus::kOutOfMemory) << record.message;
  EXPECT_EQ(record.message, "max_batch: out of memory at the starting batch " +
                                std::to_string(config.batch_size) + ": its training step took " +
                                std::to_string(needed) +
                                " bytes, above techniques.max_batch.budget_bytes 1000; lower "
                                "batch_size or raise the budget");
}

TEST(GradClippingTest, PostClipNormIsAtMostMaxNorm) {
  auto a = torch::randn({10, 10}).requires_grad_(), b = torch::randn({10}).requires_grad_();
  (torch::matmul(a, b).pow(2).sum() * 100).backward();
  const double before = clip_global_grad_norm({a, b}, 1.0);
  EXPECT_GT(before, 1.0);
  const double after =
      std::sqrt(a.grad().pow(2).sum().item<double>() + b.grad().pow(2).sum().item<double>());
  EXPECT_NEAR(after, 1.0, 1e-5);
}

TEST(GradClippingTest, ClippingKeepsAHighLrCharModelFromDiverging) {
  // SGD at lr 15 with momentum: unclipped, the LSTM's loss climbs past 30 within 10 steps
  // (from ln(vocabulary) ~ 4.7); clipped to norm 0.1 it falls to ~2.4 in 60 steps (seed 3).
  auto config = [](double clip) {
    return train_config_from_json(
        {{"data",
          {{"dataset", "fortunes"},
           {"sequence_length", 64},
           {"train_samples", 4096},
           {"test_samples", 50}}},
         {"model", {{"arch", "char_lm"}, {"hidden", 128}, {"embedding", 32}}},
         {"optimizer", {{"name", "sgd"}, {"lr", 15.0}, {"momentum", 0.9}}},
         {"batch_size", 32},
         {"max_steps", 60},
         {"seed", 3},
         {"progress_every_s", 0},
         {"divergence_loss", 10.0},
         {"techniques", {{"grad_clipping", clip}}}},
        "test");
  };
  const auto unclipped = train(config(0.0));
  EXPECT_EQ(unclipped.status, RunStatus::kDiverged);
  EXPECT_NE(unclipped.message.find("above divergence_loss"), std::string::npos)
      << unclipped.message;
  const auto clipped = train(config(0.1));
  ASSERT_EQ(clipped.status, RunStatus::kOk) << clipped.message;
  EXPECT_LT(clipped.metrics.final_train_loss, 3.0);
}

TEST(DebugModeTest, AnomalyModeReportsTheNanProducingOp) {
  auto x = torch::tensor({-1.0}).requires_grad_();
  {
    DebugModeGuard guard("anomaly");
    auto y = torch::sqrt(x).sum();  // NaN forward, NaN backward
    try {
      y.backward();
      FAIL() << "anomaly mode did not report";
    } catch (const std::exception& error) {
      EXPECT_NE(std::string(error.what()).find("SqrtBackward0"), std::string::npos) << error.what();
    }
  }
  x.mutable_grad().reset();
  torch::sqrt(x).sum().backward();  // off again: no error, just NaN
  EXPECT_TRUE(std::isnan(x.grad().item<double>()));
}

// Through train(): anomaly detection stops the backward pass that makes NaN and names its op;
// the run is diverged, as the same run is without it once its loss is read as NaN.
TEST(DebugModeTest, AnomalyModeEndsADivergingRunAsDivergedNamingTheOp) {
  auto config = small_run({{"debug_mode", "anomaly"}});
  config.optimizer.lr = 1e4;
  config.optimizer.momentum = 0.0;
  const auto anomaly = train(config);
  EXPECT_EQ(anomaly.status, RunStatus::kDiverged);
  EXPECT_NE(anomaly.message.find("gradients became NaN at step"), std::string::npos)
      << anomaly.message;
  EXPECT_NE(anomaly.message.find("Backward0' returned nan values"), std::string::npos)
      << anomaly.message;
  config.techniques.debug_mode = "off";
  const auto plain = train(config);
  EXPECT_EQ(plain.status, RunStatus::kDiverged);
  EXPECT_NE(plain.message.find("loss became"), std::string::npos) << plain.message;
  // Same arithmetic until the anomaly run stops, no later than the plain run: a NaN forward pass
  // makes its backward pass NaN too.
  const auto& losses = anomaly.metrics.step_losses;
  ASSERT_LE(losses.size(), plain.metrics.step_losses.size());
  EXPECT_TRUE(std::equal(losses.begin(), losses.end(), plain.metrics.step_losses.begin()))
      << anomaly.message << " / " << plain.message;
}

TEST(DebugModeTest, AnomalyReportsAreToldFromOtherErrors) {
  EXPECT_TRUE(is_anomaly_nan_report(
      "Function 'LogSoftmaxBackward0' returned nan values in its 0th output."));
  EXPECT_FALSE(is_anomaly_nan_report("CUDA out of memory. Tried to allocate 2.00 GiB"));
  EXPECT_FALSE(is_anomaly_nan_report("loss became nan at step 3"));
}

TEST(DebugModeTest, ProfilerModeTrainsAndTurnsOff) {
  const auto outcome = train(small_run({{"debug_mode", "profiler"}}, 128));
  EXPECT_EQ(outcome.status, RunStatus::kOk);
  EXPECT_EQ(outcome.metrics.step_losses,
            train(small_run(nlohmann::json::object(), 128)).metrics.step_losses);
}

TEST(ChannelsLastTest, WeightsAndInputsAreNhwcAndResultsMatch) {
  torch::manual_seed(0);
  models::ResNet net(models::cifar_resnet_options(8, {8, 16, 32}));
  net->eval();
  auto x = torch::randn({2, 1, 28, 28});
  const auto reference = net->forward(x);
  convert_to_channels_last(*net);
  int64_t converted = 0;
  for (const auto& p : net->parameters()) {
    if (p.dim() == 4) {
      // The strides, not just contiguity: a one-channel stem weight is "contiguous" either way.
      EXPECT_EQ(p.suggest_memory_format(), at::MemoryFormat::ChannelsLast)
          << p.sizes() << " " << p.strides();
      converted += 1;
    }
  }
  EXPECT_EQ(converted, 1 + 6 + 2);  // stem, 2 per block, 2 shortcuts
  auto nhwc = channels_last_input(x);
  EXPECT_TRUE(nhwc.is_contiguous(at::MemoryFormat::ChannelsLast));
  // Every activation is NHWC from the stem on (no format mixing).
  auto activation = net->forward_segment(0, nhwc);
  EXPECT_EQ(activation.suggest_memory_format(), at::MemoryFormat::ChannelsLast)
      << activation.strides();
  EXPECT_TRUE(torch::allclose(net->forward(nhwc), reference, 1e-4, 1e-5));
}

// Through apply_runtime_settings, which every run (and lr-find) calls before its first tensor.
TEST(BackendFlagsTest, CudnnBenchmarkAndTf32AreSetAndReset) {
  TrainConfig on;
  on.techniques.cudnn_benchmark = true;
  on.techniques.tf32 = true;
  apply_runtime_settings(on);
  auto& context = at::globalContext();
  EXPECT_TRUE(context.benchmarkCuDNN());
  EXPECT_TRUE(context.allowTF32CuBLAS());
  EXPECT_TRUE(context.allowTF32CuDNN(at::Float32Op::CONV));
  EXPECT_TRUE(context.allowTF32CuDNN(at::Float32Op::RNN));
  // The baseline is strict fp32 on both libraries, though PyTorch's default has cuDNN's TF32 on.
  apply_runtime_settings(TrainConfig{});
  EXPECT_FALSE(context.benchmarkCuDNN());
  EXPECT_FALSE(context.allowTF32CuBLAS());
  EXPECT_FALSE(context.allowTF32CuDNN(at::Float32Op::CONV));
  EXPECT_FALSE(context.allowTF32CuDNN(at::Float32Op::RNN));
}

TEST(NotApplicableTest, CudaOnlyTechniquesOnTheCpuAreRecordedWithTheReason) {
  for (const auto* id : {"cudnn_benchmark", "tf32", "pin_memory", "cuda_graphs"}) {
    auto config = small_run({{id, true}}, 128);
    const auto record = execute_run(config, RunIdentity{});
    EXPECT_EQ(record.status, RunStatus::kNotApplicable) << id;
    EXPECT_NE(record.message.find(std::string(id) + " applies only on cuda"), std::string::npos)
        << record.message;
  }
}

TEST(NotApplicableTest, HostBatchTechniquesWithTheDataOnTheDeviceAreRecordedWithTheReason) {
  for (const nlohmann::json& patch :
       {nlohmann::json{{"loader_workers", 2}}, nlohmann::json{{"host_to_tensor", true}}}) {
    auto config = small_run(patch, 128);
    config.data.on_device = true;
    const auto record = execute_run(config, RunIdentity{});
    EXPECT_EQ(record.status, RunStatus::kNotApplicable) << patch.dump();
    EXPECT_NE(record.message.find("acts on host batches, and this run has none (data.on_device"),
              std::string::npos)
        << record.message;
  }
  auto plain = small_run(nlohmann::json::object(), 128);
  plain.data.on_device = true;
  const auto record = execute_run(plain, RunIdentity{});
  EXPECT_EQ(record.status, RunStatus::kOk) << record.message;
}

TEST(BnNoBiasTest, RemovesTheConvBiasesFromTheModel) {
  const auto with_bias = train(small_run(nlohmann::json::object(), 64));
  const auto without = train(small_run({{"bn_no_bias", true}}, 64));
  EXPECT_EQ(with_bias.metrics.parameter_count - without.metrics.parameter_count,
            16 + 32 + 96 + 192);  // the conv output channels of ResNet-8 (16/32/64)
}

TEST(ConfigCombinationTest, ImpossibleTechniqueCombinationsAreRejected) {
  auto error_of = [](const nlohmann::json& json) -> std::string {
    try {
      train_config_from_json(json, "c.json");
    } catch (const ConfigError& error) {
      return error.what();
    }
    return "no error";
  };
  EXPECT_NE(error_of({{"techniques", {{"amp", "fp16"}}}}).find("needs device \"cuda\""),
            std::string::npos);
  EXPECT_NE(error_of({{"model", {{"arch", "row_rnn"}}}, {"techniques", {{"checkpointing", true}}}})
                .find("techniques.checkpointing"),
            std::string::npos);
  EXPECT_NE(error_of({{"batch_size", 100}, {"techniques", {{"grad_accumulation", 3}}}})
                .find("not divisible into 3"),
            std::string::npos);
  EXPECT_NE(
      error_of({{"device", "cuda"}, {"techniques", {{"ddp_world_size", 2}, {"cuda_graphs", true}}}})
          .find("cannot be combined with ddp"),
      std::string::npos);
  EXPECT_NE(error_of({{"techniques", {{"max_batch", {{"enabled", true}}}}}}).find("budget_bytes"),
            std::string::npos);
  EXPECT_NE(
      error_of({{"techniques", {{"lr_schedule", {{"kind", "one_cycle"}}}}}}).find("needs max_lr"),
      std::string::npos);
  EXPECT_NE(
      error_of({{"device", "cuda"},
                {"techniques", {{"cuda_graphs", true}, {"lr_schedule", {{"kind", "cosine"}}}}}})
          .find("cannot be combined with lr_schedule"),
      std::string::npos);
  EXPECT_NE(error_of({{"device", "cuda"},
                      {"optimizer", {{"name", "adamw"}}},
                      {"techniques", {{"cuda_graphs", true}}}})
                .find("optimizer_impl \"fused\""),
            std::string::npos);
  // SGD (device-side state) with a constant LR is fine.
  EXPECT_EQ(error_of({{"device", "cuda"}, {"techniques", {{"cuda_graphs", true}}}}), "no error");
}

}  // namespace
}  // namespace speedbench
