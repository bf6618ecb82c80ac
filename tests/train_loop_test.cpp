// Small end-to-end runs of the train loop: determinism, divergence, time-to-target bookkeeping;
// the step timer, the matmul peak and the progress reporter it uses.
#include <ATen/Context.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>

#include "harness/config/config_loader.h"
#include "harness/measure/matmul_peak.h"
#include "harness/measure/step_timer.h"
#include "harness/train/progress_reporter.h"
#include "harness/train/train_loop.h"

namespace speedbench {
namespace {

TrainConfig small_resnet_config() {
  return train_config_from_json({{"data", {{"train_samples", 512}, {"test_samples", 256}}},
                                 {"batch_size", 64},
                                 {"epochs", 2},
                                 {"warmup_steps", 2},
                                 {"eval_every_steps", 4},
                                 {"progress_every_s", 0}},
                                "test");
}

TEST(TrainLoopTest, SameSeedInDeterministicModeGivesABitwiseIdenticalLossCurve) {
  auto config = small_resnet_config();
  config.deterministic = true;
  config.seed = 11;
  const auto first = train(config);
  const auto second = train(config);
  ASSERT_EQ(first.status, RunStatus::kOk);
  ASSERT_EQ(first.metrics.step_losses.size(), 16u);                  // 512/64 steps x 2 epochs
  EXPECT_EQ(first.metrics.step_losses, second.metrics.step_losses);  // exact, not approximate
  config.seed = 12;
  EXPECT_NE(train(config).metrics.step_losses, first.metrics.step_losses);
}

TEST(TrainLoopTest, DataOnTheDeviceTrainsOnTheSameBatchesAsTheHostPath) {
  auto config = small_resnet_config();
  config.deterministic = true;
  const auto host = train(config);
  config.data.on_device = true;
  const auto on_device = train(config);
  ASSERT_EQ(on_device.status, RunStatus::kOk) << on_device.message;
  EXPECT_EQ(on_device.metrics.step_losses, host.metrics.step_losses);  // exact
  EXPECT_EQ(on_device.metrics.curve.back().test_accuracy, host.metrics.curve.back().test_accuracy);
}

TEST(TrainLoopTest, MetricsAreConsistentWithTheConfig) {
  auto config = small_resnet_config();
  config.target_accuracy = 0.05;  // reached at the first evaluation
  const auto outcome = train(config);
  const auto& m = outcome.metrics;
  ASSERT_EQ(outcome.status, RunStatus::kOk) << outcome.message;
  EXPECT_EQ(m.steps, 16);
  EXPECT_EQ(m.measured_steps, 14);  // warmup excluded
  EXPECT_EQ(m.step_ms.size(), 14u);
  ASSERT_EQ(m.warmup_step_ms.size(), 2u);  // ...but kept apart: the first step's one-time costs
  EXPECT_GT(m.warmup_step_ms.front(), 0.0);
  EXPECT_EQ(m.samples_trained, 16 * 64);
  EXPECT_EQ(m.curve.size(), 4u);  // every 4 steps
  EXPECT_EQ(m.curve.front().step, 4);
  EXPECT_DOUBLE_EQ(m.curve.back().epoch, 2.0);
  ASSERT_TRUE(m.time_to_target_s.has_value());
  EXPECT_EQ(*m.steps_to_target, 4);
  EXPECT_DOUBLE_EQ(*m.time_to_target_s, m.curve.front().wall_s);
  EXPECT_GT(m.samples_per_s, 0);
  EXPECT_GT(m.peak_allocated_bytes, 0);
  EXPECT_GE(m.host_syncs, m.steps);  // the baseline reads the loss every step
  EXPECT_LE(m.eval_wall_s, m.train_wall_s);
  // The CPU side of the GPU path's measurements.
  EXPECT_EQ(m.step_timing, "host_clock");
  EXPECT_FALSE(m.device_syncs.has_value());  // sync-debug mode is CUDA's
  EXPECT_EQ(m.peak_reserved_bytes, 0);
  EXPECT_EQ(m.matmul_peak_size, 512);
  ASSERT_EQ(m.matmul_peak_flops.size(), 1u);  // only the run's precision is timed
  EXPECT_GT(m.matmul_peak_flops.at("fp32"), 0);
  EXPECT_EQ(m.matmul_peak_kernel.size(), 1u);
  // Timed at the start and again at the end: the peak is the faster of the two.
  ASSERT_EQ(m.matmul_peak_flops_at_start.size(), 1u);
  ASSERT_EQ(m.matmul_peak_flops_at_end.size(), 1u);
  EXPECT_GT(m.matmul_peak_flops_at_end.at("fp32"), 0);
  EXPECT_DOUBLE_EQ(m.matmul_peak_flops.at("fp32"), std::max(m.matmul_peak_flops_at_start.at("fp32"),
                                                            m.matmul_peak_flops_at_end.at("fp32")));
  EXPECT_DOUBLE_EQ(m.mfu,
                   m.train_flops_per_sample * m.samples_per_s / m.matmul_peak_flops.at("fp32"));
  EXPECT_GT(m.mfu, 0);
  EXPECT_LT(m.mfu, 1);
  // Other processes' load, the hypervisor's steal and the run's threads' waits for a CPU over
  // the training: their values are the machine's, not the test's, but a measure that came out in
  // the wrong unit (clock ticks, nanoseconds) or over the wrong interval would read far beyond
  // the machine's cores or the process's threads.
  const double cores = std::thread::hardware_concurrency();
  ASSERT_TRUE(m.other_processes_busy_cores.has_value());
  EXPECT_LE(*m.other_processes_busy_cores, cores);
  ASSERT_TRUE(m.stolen_cores.has_value());
  EXPECT_LE(*m.stolen_cores, cores);
  EXPECT_EQ(m.cpu_wait_threads.has_value(), std::filesystem::exists("/proc/self/schedstat"));
  EXPECT_LE(m.cpu_wait_threads.value_or(0.0), 64.0);
  EXPECT_TRUE(m.distributed.rank_cpu_s.empty());  // one process: nothing gathered
  // The measured steps' page faults (none, where malloc had every page of the steps' tensors at
  // hand): fewer than one a step per 4 KiB of everything the process has ever held.
  ASSERT_TRUE(m.minor_page_faults.has_value());
  EXPECT_LT(*m.minor_page_faults, m.peak_rss_bytes / 4096 * m.measured_steps);
}

// A progress line is built (a snprintf in the step) only when one is due, at most one a period.
TEST(ProgressReporterTest, ALineIsMadeOnlyWhenAPeriodHasPassed) {
  std::vector<std::string> lines;
  const ProgressReporter::Sink sink = [&](const std::string& line) { lines.push_back(line); };
  int made = 0;
  const auto make_line = [&] { return "line " + std::to_string(++made); };
  ProgressReporter quiet(sink, 0), slow(sink, 3600);
  for (int i = 0; i < 3; ++i) {
    quiet.maybe_report(make_line);
    slow.maybe_report(make_line);
  }
  EXPECT_EQ(made, 0) << "no line is made when none is due";
  ProgressReporter due(sink, 0.5);
  due.maybe_report(make_line);
  EXPECT_EQ(made, 0) << "the first period starts with the reporter";
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  due.maybe_report(make_line);
  due.maybe_report(make_line);  // the next period has only just begun
  EXPECT_EQ(lines, std::vector<std::string>{"line 1"});
  const ProgressReporter::Sink none;
  ProgressReporter without_sink(none, 1e-9);
  without_sink.maybe_report(make_line);
  EXPECT_EQ(made, 1);
}

TEST(StepTimerTest, TheHostClockTimesEndedStepsOnlyAndHandsEachOutOnce) {
  auto timer = measure::make_step_timer(/*on_cuda=*/false, 0);
  EXPECT_EQ(timer->source(), "host_clock");
  timer->start_step();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  timer->end_step();
  timer->start_step();  // never ended, as when a run diverges mid-step: not a step
  const auto ms = timer->take_step_ms();
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_GE(ms[0], 20.0);
  EXPECT_LT(ms[0], 2000.0);
  EXPECT_TRUE(timer->take_step_ms().empty());
}

TEST(MatmulPeakTest, TheCpuPeakMeasuresTheAskedDtypesAndPicksTheRunsPrecision) {
  const auto peak = measure::measure_matmul_peak(/*on_cuda=*/false, 0, {"fp32", "bf16"});
  EXPECT_EQ(peak.size, 512);
  ASSERT_EQ(peak.flops_per_s.size(), 2u);
  EXPECT_GT(peak.flops_per_s.at("fp32"), 1e8);
  EXPECT_GT(peak.flops_per_s.at("bf16"), 1e6);  // ~1.6e9 on a CPU without native bf16
  // Each peak names the kernel that set it: at::mm, or oneDNN's where it was faster.
  for (const auto* dtype : {"fp32", "bf16"}) {
    const auto& kernel = peak.kernel.at(dtype);
    EXPECT_TRUE(kernel == "at::mm" || kernel == "oneDNN") << dtype << ": " << kernel;
  }
  EXPECT_EQ(measure::peak_for_amp(peak, "off"), peak.flops_per_s.at("fp32"));
  EXPECT_EQ(measure::peak_for_amp(peak, "bf16"), peak.flops_per_s.at("bf16"));
  EXPECT_EQ(measure::peak_for_amp(peak, "fp16"),
            0.0);  // not measured: no MFU rather than a wrong one
  EXPECT_EQ(measure::matmul_dtype_for_amp("off"), "fp32");
  EXPECT_EQ(measure::matmul_dtype_for_amp("bf16"), "bf16");
  EXPECT_EQ(measure::measure_matmul_peak(/*on_cuda=*/false, 0, {}).flops_per_s.size(), 0u);
}

TEST(MatmulPeakTest, TheCpuTimesBothGemmLibraries) {
  const auto rates = measure::matmul_kernel_rates(/*on_cuda=*/false, 0, "fp32", 256);
  ASSERT_TRUE(at::hasMKLDNN()) << "the wheel's LibTorch is built with oneDNN";
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_GT(rates.at("at::mm"), 0);
  EXPECT_GT(rates.at("oneDNN"), 0);
}

TEST(MatmulPeakTest, ThePeakIsTheFastestKernels) {
  // An AMD EPYC's fp32 products at n = 512: MKL's sgemm behind at::mm, oneDNN's GEMM.
  const auto fastest = measure::fastest_kernel({{"at::mm", 1.95e11}, {"oneDNN", 4.31e11}});
  EXPECT_EQ(fastest.first, "oneDNN");
  EXPECT_EQ(fastest.second, 4.31e11);
  EXPECT_EQ(measure::fastest_kernel({{"at::mm", 8.3e11}, {"oneDNN", 8.2e11}}).first, "at::mm");
  EXPECT_EQ(measure::fastest_kernel({{"at::mm", 7.9e14}}).first, "at::mm");  // CUDA: one kernel
  EXPECT_EQ(measure::fastest_kernel({}), std::make_pair(std::string(), 0.0));
}

TEST(MatmulPeakTest, TheFasterOfTwoProbesCountsPerDtypeWithItsKernel) {
  // A start whose probe lost a core (the CPU references' half-speed probes), an end that did not.
  measure::MatmulPeak at_start{512, {{"fp32", 1.1e11}}, {{"fp32", "oneDNN"}}};
  measure::MatmulPeak at_end{512, {{"fp32", 2.2e11}}, {{"fp32", "at::mm"}}};
  auto faster = measure::faster_peak(at_start, at_end);
  EXPECT_EQ(faster.size, 512);
  EXPECT_EQ(faster.flops_per_s.at("fp32"), 2.2e11);
  EXPECT_EQ(faster.kernel.at("fp32"), "at::mm");
  // Either order; a tie keeps the first.
  EXPECT_EQ(measure::faster_peak(at_end, at_start).flops_per_s.at("fp32"), 2.2e11);
  at_end.flops_per_s["fp32"] = 1.1e11;
  EXPECT_EQ(measure::faster_peak(at_start, at_end).kernel.at("fp32"), "oneDNN");
  // Each dtype on its own; a dtype only one probe timed is kept, with or without its kernel.
  at_start.flops_per_s["bf16"] = 4e11;
  at_start.kernel["bf16"] = "oneDNN";
  at_end.flops_per_s["fp16"] = 3e11;
  at_end.flops_per_s["bf16"] = 5e11;  // no kernel named for it: the start's is not the faster's
  faster = measure::faster_peak(at_start, at_end);
  EXPECT_EQ(faster.flops_per_s,
            (std::map<std::string, double>{{"bf16", 5e11}, {"fp16", 3e11}, {"fp32", 1.1e11}}));
  EXPECT_EQ(faster.kernel.count("bf16"), 0u);
  // Products of other sizes are other measurements.
  at_end.size = 8192;
  EXPECT_THROW(measure::faster_peak(at_start, at_end), std::invalid_argument);
}

TEST(MatmulPeakTest, MfuIsTheRatioToThePeakAndNoneWhenThePeakIsNoPeak) {
  EXPECT_DOUBLE_EQ(measure::model_flop_utilisation(2e9, 8e9), 0.25);
  EXPECT_DOUBLE_EQ(measure::model_flop_utilisation(8e9, 8e9), 1.0);
  EXPECT_EQ(measure::model_flop_utilisation(5.5e9, 1.5e9), 0.0);  // the bf16 case above
  EXPECT_EQ(measure::model_flop_utilisation(2e9, 0.0), 0.0);      // dtype not measured
}

TEST(MatmulPeakTest, ADtypeTheDeviceHasNoProductForIsAClearError) {
  try {
    measure::measure_matmul_peak(/*on_cuda=*/false, 0, {"fp16"});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "matmul peak: no fp16 product on cpu (expected fp32, bf16)");
  }
}

TEST(TrainLoopTest, ExplodingLossEndsTheRunAsDiverged) {
  auto config = small_resnet_config();
  config.optimizer.lr = 1e4;
  config.optimizer.momentum = 0.0;
  const auto outcome = train(config);
  EXPECT_EQ(outcome.status, RunStatus::kDiverged);
  EXPECT_NE(outcome.message.find("loss became"), std::string::npos) << outcome.message;
  EXPECT_LT(outcome.metrics.steps, 16);
}

TEST(TrainLoopTest, CharModelLearnsBelowTheUnigramEntropy) {
  auto config = train_config_from_json(
      {{"data", {{"dataset", "fortunes"}, {"sequence_length", 64}, {"test_samples", 200}}},
       {"model", {{"arch", "char_lm"}, {"hidden", 128}, {"embedding", 32}}},
       {"optimizer", {{"name", "adam"}, {"lr", 0.005}}},
       {"batch_size", 32},
       {"max_steps", 150},
       {"eval_every_steps", 150},
       {"progress_every_s", 0}},
      "test");
  const auto outcome = train(config);
  ASSERT_EQ(outcome.status, RunStatus::kOk) << outcome.message;
  const double bits_per_char = outcome.metrics.final_test_loss / std::log(2.0);
  EXPECT_LT(bits_per_char, outcome.unigram_entropy_bits);
}

}  // namespace
}  // namespace speedbench
