// Tips 2, 12, 17: data-side techniques (loader workers, host-to-tensor wrapping, input
// normalization). Pinned memory needs a GPU: its run is in tests/cuda_test.cpp.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/config/config_loader.h"
#include "harness/data/batch_dataset.h"
#include "harness/techniques/host_to_tensor.h"
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

TEST(LoaderWorkersTest, WorkerThreadsServeTheSameBatchesInTheSameOrder) {
  auto config =
      train_config_from_json({{"data", {{"train_samples", 640}, {"augment", true}}}}, "t");
  auto workload = build_workload(config);
  auto batches = [&](int64_t workers) {
    torch::manual_seed(5);  // the sampler's permutation
    auto loader =
        torch::data::make_data_loader(data::BatchDataset(workload.data.train, workload.transform),
                                      torch::data::DataLoaderOptions(64).workers(workers));
    std::vector<torch::Tensor> out;
    for (auto& batch : *loader) out.push_back(batch.data);
    return out;
  };
  const auto main_thread = batches(0), two_workers = batches(2);
  ASSERT_EQ(main_thread.size(), 10u);
  ASSERT_EQ(two_workers.size(), 10u);
  for (size_t i = 0; i < main_thread.size(); ++i)
    EXPECT_TRUE(torch::equal(main_thread[i], two_workers[i])) << i;
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
