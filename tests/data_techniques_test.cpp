// Tips 2, 12, 17: data-side techniques (loader workers, host-to-tensor wrapping, input
// normalization). Pinned memory needs a GPU: its run is in tests/cuda_test.cpp.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <numeric>
#include <thread>

#include "harness/config/config_loader.h"
#include "harness/data/batch_dataset.h"
#include "harness/measure/cpu_memory_tracker.h"
#include "harness/techniques/host_to_tensor.h"
#include "harness/train/train_batches.h"
#include "harness/train/workload.h"

namespace speedbench {
namespace {

TEST(HostToTensorTest, WrappingSharesTheBufferAndCopyingDoesNot) {
  auto buffer = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4, 5, 6});
  const auto* address = buffer->data();
  auto wrapped = host_buffer_to_tensor(buffer, {2, 3}, /*wrap=*/true);
  auto copied = host_buffer_to_tensor(buffer, {2, 3}, /*wrap=*/false);
  EXPECT_EQ(wrapped.data_ptr<float>(), address);
  EXPECT_NE(copied.data_ptr<float>(), address);
  EXPECT_TRUE(torch::equal(wrapped, copied));
  // The wrapped tensor keeps the buffer alive after every other owner let go.
  buffer.reset();
  EXPECT_EQ(wrapped[1][2].item<float>(), 6.0f);
  (*const_cast<float*>(address)) = 42.0f;  // same memory
  EXPECT_EQ(wrapped[0][0].item<float>(), 42.0f);
  EXPECT_EQ(copied[0][0].item<float>(), 1.0f);
}

TEST(HostToTensorTest, BatchesAreTheSameEitherWay) {
  data::ExampleSet set{torch::randint(0, 256, {16, 1, 4, 4}, torch::kUInt8),
                       torch::arange(16, torch::kInt64)};
  data::ImageTransform copy_transform, wrap_transform;
  wrap_transform.wrap_host_buffer = true;
  data::BatchDataset copying(set, copy_transform), wrapping(set, wrap_transform);
  std::vector<size_t> rows = {3, 9, 0};
  EXPECT_TRUE(torch::equal(copying.get_batch(rows).data, wrapping.get_batch(rows).data));
}

// Through the run's workload (build_workload, as train() builds it): with host_to_tensor a batch's
// inputs are the host buffer they were gathered into, not tracked tensor memory; without it they
// are copied into a tensor of their exact size.
TEST(HostToTensorTest, TheRunsBatchesWrapTheirBufferOnlyWithTheTechnique) {
  auto& tracker = measure::CpuMemoryTracker::install();
  auto tensor_bytes_held = [&](bool host_to_tensor) {
    const auto config = train_config_from_json(
        {{"data", {{"train_samples", 128}}}, {"techniques", {{"host_to_tensor", host_to_tensor}}}},
        "t");
    auto workload = build_workload(config);
    data::BatchDataset dataset(workload.data.train, workload.transform);
    std::vector<size_t> rows(64);
    std::iota(rows.begin(), rows.end(), 0);
    const auto before = tracker.current_bytes();
    const auto batch = dataset.get_batch(rows);
    return tracker.current_bytes() - before;
  };
  EXPECT_EQ(tensor_bytes_held(false) - tensor_bytes_held(true),
            64 * 28 * 28 * static_cast<int64_t>(sizeof(float)));
}

TrainConfig loader_config(int64_t workers, bool augment) {
  return train_config_from_json({{"data", {{"train_samples", 640}, {"augment", augment}}},
                                 {"batch_size", 64},
                                 {"techniques", {{"loader_workers", workers}}}},
                                "t");
}

// Through the run's own loader (make_train_batches, as train() builds it from the config).
TEST(LoaderWorkersTest, WorkerThreadsServeTheSameBatchesInTheSameOrder) {
  auto batches = [&](int64_t workers) {
    const auto config = loader_config(workers, /*augment=*/true);
    auto workload = build_workload(config);
    auto train_batches = make_train_batches(workload, config, /*rank=*/0, /*world_size=*/1);
    EXPECT_EQ(train_batches.loader->options().workers, static_cast<size_t>(workers));
    EXPECT_EQ(train_batches.steps_per_epoch, 10);
    std::vector<torch::Tensor> out;
    for (auto& batch : *train_batches.loader) out.push_back(batch.data);
    return out;
  };
  const auto main_thread = batches(0), two_workers = batches(2);
  ASSERT_EQ(main_thread.size(), 10u);
  ASSERT_EQ(two_workers.size(), 10u);
  for (size_t i = 0; i < main_thread.size(); ++i)
    EXPECT_TRUE(torch::equal(main_thread[i], two_workers[i])) << i;
}

// The speedup's mechanism: workers assemble batches before the training thread asks for one
// (LibTorch queues 2 jobs per worker); without workers nothing is assembled until it asks.
TEST(LoaderWorkersTest, WorkersAssembleBatchesAheadOfTheTrainingThread) {
  auto& tracker = measure::CpuMemoryTracker::install();
  const int64_t input_bytes = 64 * 28 * 28 * static_cast<int64_t>(sizeof(float));
  constexpr int64_t kJobsPerWorker = 2;  // DataLoaderOptions' default max_jobs: 2 x workers
  auto bytes_assembled_ahead = [&](int64_t workers) {
    const auto config = loader_config(workers, /*augment=*/false);
    auto workload = build_workload(config);
    auto train_batches = make_train_batches(workload, config, 0, 1);
    const auto before = tracker.current_bytes();
    auto batch_it = train_batches.loader->begin();  // no batch taken yet
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (workers > 0 &&
           tracker.current_bytes() - before < kJobsPerWorker * workers * input_bytes &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return tracker.current_bytes() - before;
  };
  EXPECT_EQ(bytes_assembled_ahead(0), 0);
  EXPECT_GE(bytes_assembled_ahead(2), kJobsPerWorker * 2 * input_bytes);
}

TEST(InputNormTest, NormalizedTrainingInputsHaveZeroMeanAndUnitStd) {
  auto config = train_config_from_json({{"techniques", {{"input_norm", true}}}}, "t");
  auto workload = build_workload(config);
  data::BatchDataset dataset(workload.data.train, workload.transform);
  std::vector<size_t> all(workload.data.train.size());
  std::iota(all.begin(), all.end(), 0);
  auto inputs = dataset.get_batch(all).data;
  EXPECT_NEAR(inputs.mean().item<double>(), 0.0, 1e-4);
  EXPECT_NEAR(inputs.std().item<double>(), 1.0, 1e-4);
  // Off: raw pixels scaled to [0, 1].
  auto raw = build_workload(train_config_from_json(nlohmann::json::object(), "t"));
  auto raw_inputs = data::BatchDataset(raw.data.train, raw.transform).get_batch(all).data;
  EXPECT_EQ(raw_inputs.min().item<float>(), 0.0f);
  EXPECT_EQ(raw_inputs.max().item<float>(), 1.0f);
}

}  // namespace
}  // namespace speedbench
