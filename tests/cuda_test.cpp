// The CUDA path: event timing, the caching allocator's statistics, sync-debug counting, the
// matmul peak, the GPU-only techniques end to end and the environment block. Every test needs a
// GPU and skips with the reason without one; scripts/gpu-check runs them on a GPU machine
// (the speedbench_cuda_tests binary).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>

#include "harness/config/config_loader.h"
#include "harness/data/batch_dataset.h"
#include "harness/measure/matmul_peak.h"
#include "harness/measure/memory_meter.h"
#include "harness/measure/step_timer.h"
#include "harness/measure/sync_counter.h"
#include "harness/results/environment.h"
#include "harness/techniques/cuda_graphs.h"
#include "harness/techniques/max_batch.h"
#include "harness/techniques/zero_grad.h"
#include "harness/train/evaluate.h"
#include "harness/train/optimizer_factory.h"
#include "harness/train/train_batches.h"
#include "harness/train/train_loop.h"

namespace speedbench {
namespace {

#define SKIP_WITHOUT_GPU()           \
  if (torch::cuda::is_available()) { \
  } else                             \
    GTEST_SKIP() << "needs a CUDA device; this machine has none"

constexpr int64_t kMiB = 1 << 20;

TEST(CudaStepTimerTest, EventsSpanAHostStallWhileTheDeviceIsIdle) {
  SKIP_WITHOUT_GPU();
  auto timer = measure::make_step_timer(/*on_cuda=*/true, 0);
  EXPECT_EQ(timer->source(), "cuda_events");
  auto x = torch::randn({2048, 2048}, torch::kCUDA);
  torch::cuda::synchronize();
  timer->start_step();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // a slow loader: nothing queued
  timer->end_step();
  timer->start_step();
  for (int i = 0; i < 10; ++i) x = torch::mm(x, x).tanh_();
  timer->end_step();
  timer->start_step();  // never ended: not a step
  const auto ms = timer->take_step_ms();
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_GE(ms[0], 29.0);
  EXPECT_GT(ms[1], 0.0);
  EXPECT_TRUE(timer->take_step_ms().empty());
}

TEST(CudaStepTimerTest, TimingStepsSynchronizesNothingUntilTheTimesAreTaken) {
  SKIP_WITHOUT_GPU();
  auto timer = measure::make_step_timer(true, 0);
  auto x = torch::randn({1024, 1024}, torch::kCUDA);
  torch::cuda::synchronize();
  auto syncs = measure::start_cuda_sync_counter();
  for (int step = 0; step < 5; ++step) {
    timer->start_step();
    x = torch::mm(x, x).tanh_();
    timer->end_step();
  }
  EXPECT_EQ(syncs->count(), 0);
  EXPECT_EQ(timer->take_step_ms().size(), 5u);
}

TEST(CudaSyncCounterTest, CountsEachReadToTheHostAndNoQueuedWork) {
  SKIP_WITHOUT_GPU();
  auto x = torch::ones({16}, torch::kCUDA);
  auto* handler_before = c10::WarningUtils::get_warning_handler();
  {
    auto counter = measure::start_cuda_sync_counter();
    auto y = x * 2 + 1;  // queued, nothing waits
    EXPECT_EQ(counter->count(), 0);
    EXPECT_EQ(y.sum().item<float>(), 48.0f);
    EXPECT_EQ(counter->count(), 1);
    auto on_host = y.cpu();
    EXPECT_EQ(counter->count(), 2);
  }
  EXPECT_EQ(c10::WarningUtils::get_warning_handler(), handler_before);
}

TEST(CudaMemoryMeterTest, CountsLiveBytesExactlyAndKeepsThePeakAndTheReserve) {
  SKIP_WITHOUT_GPU();
  auto meter = measure::make_memory_meter(/*on_cuda=*/true, 0);
  meter->release_cached();
  meter->reset_peak();
  const auto base = meter->current_bytes();
  {
    auto tensor =
        torch::empty({64 * kMiB}, torch::TensorOptions(torch::kCUDA).dtype(torch::kUInt8));
    EXPECT_EQ(meter->current_bytes() - base, 64 * kMiB);
  }
  EXPECT_EQ(meter->current_bytes(), base);
  EXPECT_EQ(meter->peak_bytes() - base, 64 * kMiB);
  EXPECT_GE(meter->peak_reserved_bytes(), meter->peak_bytes());  // the cache holds the block
  meter->reset_peak();
  EXPECT_EQ(meter->peak_bytes(), base);
}

TEST(CudaMatmulPeakTest, MeasuresEachDtypeAndTensorCoresBeatFp32) {
  SKIP_WITHOUT_GPU();
  const auto peak = measure::measure_matmul_peak(/*on_cuda=*/true, 0, {"fp32", "bf16", "fp16"});
  EXPECT_EQ(peak.size, 8192);
  ASSERT_EQ(peak.flops_per_s.size(), 3u);
  // fp32 runs without TF32 unless a run asks for it; bf16 and fp16 use the tensor cores.
  EXPECT_GT(peak.flops_per_s.at("bf16"), 2 * peak.flops_per_s.at("fp32"));
  EXPECT_GT(peak.flops_per_s.at("fp16"), 2 * peak.flops_per_s.at("fp32"));
  EXPECT_LT(peak.flops_per_s.at("bf16"), 5e15);  // no GPU is this fast: a timing bug
  EXPECT_EQ(peak.kernel.at("bf16"), "at::mm");   // cuBLAS: the one kernel timed on CUDA
}

TrainConfig cuda_config(const nlohmann::json& techniques, bool data_on_device = false) {
  return train_config_from_json(
      {{"device", "cuda"},
       {"data", {{"train_samples", 2048}, {"test_samples", 256}, {"on_device", data_on_device}}},
       {"batch_size", 64},
       {"epochs", 1},
       {"warmup_steps", 4},
       {"progress_every_s", 0},
       {"techniques", techniques}},
      "cuda_test");
}

TEST(CudaTrainTest, ARunIsTimedByEventsWithAllocatorPeaksSyncsAndMfu) {
  SKIP_WITHOUT_GPU();
  const auto outcome = train(cuda_config(nlohmann::json::object()));
  ASSERT_EQ(outcome.status, RunStatus::kOk) << outcome.message;
  const auto& m = outcome.metrics;
  EXPECT_EQ(m.step_timing, "cuda_events");
  EXPECT_EQ(m.steps, 32);
  EXPECT_EQ(m.step_ms.size(), 28u);
  EXPECT_GT(m.peak_allocated_bytes, m.resident_bytes);
  EXPECT_GE(m.peak_reserved_bytes, m.peak_allocated_bytes);
  ASSERT_TRUE(m.device_syncs.has_value());
  // The baseline reads its loss every step, and copies each batch (inputs, targets) from pageable
  // memory, which waits for the device too.
  EXPECT_GE(*m.device_syncs, 3 * m.steps);
  EXPECT_GT(m.mfu, 0.0);
  EXPECT_LT(m.mfu, 1.0);
  // The peak timed again after training, on a device the run's tensors still hold memory of.
  ASSERT_EQ(m.matmul_peak_flops_at_end.size(), 1u);
  EXPECT_GT(m.matmul_peak_flops_at_end.at("fp32"), 0.0);

  // Pinned batches are copied without waiting for the device (tip 2): 2 waits a step fewer.
  const auto pinned = train(cuda_config({{"pin_memory", true}}));
  ASSERT_EQ(pinned.status, RunStatus::kOk) << pinned.message;
  ASSERT_TRUE(pinned.metrics.device_syncs.has_value());
  EXPECT_LE(*pinned.metrics.device_syncs, *m.device_syncs - 2 * m.steps);

  // With the data on the device no batch is copied: the loss reads are the only waits left...
  const auto on_device = train(cuda_config(nlohmann::json::object(), /*data_on_device=*/true));
  ASSERT_EQ(on_device.status, RunStatus::kOk) << on_device.message;
  ASSERT_TRUE(on_device.metrics.device_syncs.has_value());
  EXPECT_GE(*on_device.metrics.device_syncs, m.steps);
  EXPECT_LE(*on_device.metrics.device_syncs, *m.device_syncs - 2 * m.steps);
  // ...and reading the loss every 8 steps (tip 7) waits for the device 4 times, not 32.
  const auto avoiding =
      train(cuda_config({{"sync_avoidance", true}, {"sync_every_steps", 8}}, true));
  ASSERT_EQ(avoiding.status, RunStatus::kOk) << avoiding.message;
  ASSERT_TRUE(avoiding.metrics.device_syncs.has_value());
  EXPECT_LE(*avoiding.metrics.device_syncs, 8);
}

TEST(CudaDataOnDeviceTest, BatchesAreGatheredOnTheDeviceAndEqualTheHostOnes) {
  SKIP_WITHOUT_GPU();
  data::ExampleSet host{torch::randint(0, 256, {16, 3, 8, 8}, torch::kUInt8),
                        torch::randint(0, 10, {16}, torch::kInt64)};
  data::ExampleSet device{host.inputs.cuda(), host.targets.cuda()};
  data::ImageTransform on_device;
  on_device.on_device = true;
  data::BatchDataset from_host(host, data::ImageTransform{});
  data::BatchDataset from_device(device, on_device);
  const std::vector<size_t> rows = {7, 0, 15, 3};
  const auto expected = from_host.get_batch(rows);
  const auto batch = from_device.get_batch(rows);
  EXPECT_TRUE(batch.data.is_cuda());
  EXPECT_TRUE(batch.target.is_cuda());
  EXPECT_TRUE(torch::equal(batch.data.cpu(), expected.data));
  EXPECT_TRUE(torch::equal(batch.target.cpu(), expected.target));
}

// Tip 2 as PyTorch's DataLoader does it: the thread that assembles a batch (a worker, with
// workers) pins it, so the training thread only queues the asynchronous copy.
TEST(CudaPinMemoryTest, TheRunsLoaderServesPinnedBatchesEqualToThePageableOnes) {
  SKIP_WITHOUT_GPU();
  auto batches = [](int64_t workers, bool pin) {
    const auto config =
        train_config_from_json({{"data", {{"train_samples", 256}, {"augment", true}}},
                                {"batch_size", 64},
                                {"techniques", {{"loader_workers", workers}, {"pin_memory", pin}}}},
                               "t");
    auto workload = build_workload(config);
    auto train_batches = make_train_batches(workload, config, /*rank=*/0, /*world_size=*/1);
    std::vector<torch::data::Example<>> out;
    for (auto& batch : *train_batches.loader) out.push_back(batch);
    return out;
  };
  const auto pageable = batches(0, false);
  ASSERT_EQ(pageable.size(), 4u);
  for (int64_t workers : {0, 2}) {
    const auto pinned = batches(workers, true);
    ASSERT_EQ(pinned.size(), pageable.size());
    for (size_t i = 0; i < pinned.size(); ++i) {
      EXPECT_FALSE(pageable[i].data.is_pinned());
      EXPECT_TRUE(pinned[i].data.is_pinned()) << workers << " workers, batch " << i;
      EXPECT_TRUE(pinned[i].target.is_pinned()) << workers << " workers, batch " << i;
      EXPECT_TRUE(torch::equal(pinned[i].data, pageable[i].data));
      EXPECT_TRUE(torch::equal(pinned[i].target, pageable[i].target));
    }
  }
}

TEST(CudaTrainTest, EveryGpuOnlyTechniqueTrainsToAnOkRecord) {
  SKIP_WITHOUT_GPU();
  const std::vector<nlohmann::json> techniques = {
      {{"amp", "fp16"}},
      {{"amp", "bf16"}},
      {{"pin_memory", true}},
      {{"cudnn_benchmark", true}},
      {{"tf32", true}},
      {{"channels_last", true}},
      {{"cuda_graphs", true}},
      {{"optimizer_impl", "fused"}},
      {{"max_batch", {{"enabled", true}, {"limit", 256}, {"warmup_steps", 2}}}},  // 8 steps of 256
  };
  for (const auto& patch : techniques) {
    const auto outcome = train(cuda_config(patch));
    EXPECT_EQ(outcome.status, RunStatus::kOk) << patch.dump() << ": " << outcome.message;
    const auto& losses = outcome.metrics.step_losses;
    ASSERT_FALSE(losses.empty()) << patch.dump();
    EXPECT_TRUE(std::isfinite(losses.back())) << patch.dump();
    EXPECT_LT(losses.back(), losses.front()) << patch.dump() << ": it did not learn";
  }
}

// The replayed step is the eager step: a twin of the model (same seed, same optimizer) trained
// eagerly on the same batches, with the capture's warmup steps on the first one, must have the
// same loss and the same weights after each replay. A replay that read the captured batch, added
// its gradients to the last ones, lost the momentum or did not step would drift from it.
TEST(CudaGraphsTest, EachReplayTrainsAsAnEagerStepOnTheNewBatch) {
  SKIP_WITHOUT_GPU();
  const auto config = cuda_config({{"cuda_graphs", true}});
  auto seeded_workload = [&] {
    torch::manual_seed(0);
    auto workload = build_workload(config);
    workload.module->to(torch::kCUDA);
    workload.module->train();
    return workload;
  };
  auto graphed = seeded_workload(), eager = seeded_workload();
  const auto graphed_weights = graphed.module->parameters();
  const auto eager_weights = eager.module->parameters();
  auto graphed_optimizer = make_optimizer(config.optimizer, graphed_weights);
  auto eager_optimizer = make_optimizer(config.optimizer, eager_weights);
  auto eager_step = [&](const torch::Tensor& inputs, const torch::Tensor& targets) {
    clear_gradients(eager_weights, /*set_to_none=*/true);
    auto loss = classification_loss(eager.train_forward(inputs, config), targets);
    loss.backward();
    eager_optimizer->step();
    return loss.item<float>();
  };
  data::BatchDataset dataset(graphed.data.train, graphed.transform);
  auto batch_at = [&](size_t first) {
    std::vector<size_t> indices(static_cast<size_t>(config.batch_size));
    std::iota(indices.begin(), indices.end(), first);
    auto batch = dataset.get_batch(indices);
    return std::make_pair(batch.data.to(torch::kCUDA), batch.target.to(torch::kCUDA));
  };
  // Distance between the twins' weights, over the size of the last eager update: cuDNN's
  // summation order differs in the last bits between runs, a wrong step by the whole update.
  auto drift_over_update = [&](const std::vector<torch::Tensor>& eager_before) {
    double drift = 0, update = 0;
    for (size_t i = 0; i < eager_weights.size(); ++i) {
      drift += (graphed_weights[i] - eager_weights[i]).pow(2).sum().item<double>();
      update += (eager_weights[i] - eager_before[i]).pow(2).sum().item<double>();
    }
    return std::sqrt(drift / update);
  };
  auto snapshot = [](const std::vector<torch::Tensor>& weights) {
    std::vector<torch::Tensor> copies;
    for (const auto& w : weights) copies.push_back(w.detach().clone());
    return copies;
  };

  const auto [first_inputs, first_targets] = batch_at(0);
  auto graphed_step =
      capture_training_step(graphed, *graphed_optimizer, config, first_inputs, first_targets);
  for (int i = 0; i < kCaptureWarmupSteps; ++i) eager_step(first_inputs, first_targets);
  for (size_t k = 1; k <= 3; ++k) {
    const auto [inputs, targets] = batch_at(k * static_cast<size_t>(config.batch_size));
    const auto eager_before = snapshot(eager_weights);
    const float replayed = graphed_step->run(inputs, targets).item<float>();
    const float expected = eager_step(inputs, targets);
    EXPECT_NEAR(replayed, expected, 1e-3 * std::abs(expected)) << "batch " << k;
    EXPECT_LT(drift_over_update(eager_before), 0.01) << "batch " << k;
  }
}

TEST(CudaMaxBatchTest, ABudgetCapsTheAllocatorPeakOfTheChosenBatch) {
  SKIP_WITHOUT_GPU();
  auto config = cuda_config(nlohmann::json::object());
  const auto workload = build_workload(config);
  const int64_t budget = 48 * kMiB;
  const auto result = search_max_batch(
      [&](int64_t batch) {
        return probe_training_step(config, workload, batch, budget, torch::kCUDA);
      },
      32, 4096);
  ASSERT_GT(result.batch, 0);
  for (const auto& probe : result.probes) {
    if (probe.batch == result.batch) {
      EXPECT_LE(probe.peak_bytes, budget);
    } else if (probe.batch > result.batch) {
      EXPECT_FALSE(probe.fits) << probe.batch;
    }
  }
}

TEST(CudaEnvironmentTest, NamesTheGpuItsDriverAndTheLibraryVersions) {
  SKIP_WITHOUT_GPU();
  const auto env = collect_environment();
  ASSERT_TRUE(env.at("cuda_available").get<bool>());
  EXPECT_GT(env.at("cudnn_version").get<int64_t>(), 0);
  const auto& gpu = env.at("gpu");
  for (const auto* key :
       {"name", "compute_capability", "runtime_version", "nccl_version", "pci_bus_id"}) {
    EXPECT_TRUE(gpu.contains(key)) << key << " missing from " << gpu.dump();
  }
  // NVML: the driver's release and the clocks, unless the library is not there.
  if (!gpu.contains("nvml")) {
    EXPECT_TRUE(gpu.contains("driver")) << gpu.dump();
    EXPECT_TRUE(gpu.contains("sm_clock_mhz_now")) << gpu.dump();
  }
}

}  // namespace
}  // namespace speedbench
