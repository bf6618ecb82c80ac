// The exact CPU byte accounting: known allocations to the byte, and activation memory that
// grows with the batch.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/measure/cpu_memory_tracker.h"
#include "harness/measure/memory_meter.h"
#include "models/resnet.h"

namespace speedbench::measure {
namespace {

TEST(CpuMemoryTrackerTest, CountsATensorToTheByteAndReleasesIt) {
  auto& tracker = CpuMemoryTracker::install();
  const auto before = tracker.current_bytes();
  {
    auto tensor = torch::empty({1000, 250}, torch::kFloat32);  // 1,000,000 bytes
    EXPECT_EQ(tracker.current_bytes() - before, 1000000);
  }
  EXPECT_EQ(tracker.current_bytes(), before);
}

TEST(CpuMemoryTrackerTest, PeakWindowRemembersTheHighestLevel) {
  auto& tracker = CpuMemoryTracker::install();
  tracker.reset_peak();
  const auto base = tracker.current_bytes();
  { auto big = torch::empty({4 << 20}, torch::kUInt8); }
  EXPECT_GE(tracker.peak_bytes() - base, 4 << 20);
  tracker.reset_peak();
  EXPECT_EQ(tracker.peak_bytes(), tracker.current_bytes());
}

TEST(CpuMemoryTrackerTest, SeesAllocationsOnOtherThreads) {
  auto& tracker = CpuMemoryTracker::install();
  tracker.reset_peak();
  const auto base = tracker.current_bytes();
  std::thread worker([] { auto t = torch::empty({2 << 20}, torch::kUInt8); });
  worker.join();
  EXPECT_GE(tracker.peak_bytes() - base, 2 << 20);
}

TEST(MemoryMeterTest, OnTheCpuItIsTheTrackerAndHasNoReserve) {
  auto meter = make_memory_meter(/*on_cuda=*/false, 0);
  meter->reset_peak();
  const auto base = meter->current_bytes();
  {
    auto tensor = torch::empty({1 << 20}, torch::kUInt8);
    EXPECT_EQ(meter->current_bytes() - base, 1 << 20);
  }
  EXPECT_EQ(meter->current_bytes(), base);
  EXPECT_EQ(meter->peak_bytes() - base, 1 << 20);
  EXPECT_EQ(meter->peak_reserved_bytes(), 0);
}

int64_t training_step_peak_bytes(int64_t batch) {
  torch::manual_seed(0);
  models::ResNet net(models::cifar_resnet_options(8, {16, 32, 64}));
  auto inputs = torch::randn({batch, 1, 28, 28});
  auto targets = torch::randint(0, 10, {batch}, torch::kInt64);
  auto& tracker = CpuMemoryTracker::install();
  tracker.reset_peak();
  const auto base = tracker.current_bytes();
  torch::nn::functional::cross_entropy(net->forward(inputs), targets).backward();
  return tracker.peak_bytes() - base;
}

TEST(CpuMemoryTrackerTest, LargerBatchHasLargerActivationPeak) {
  const auto small = training_step_peak_bytes(16);
  const auto large = training_step_peak_bytes(64);
  // Activations dominate: 4x the batch is well over 3x the bytes. The first conv's output alone
  // is batch x 16 x 28 x 28 x 4 bytes = 802,816 bytes at batch 16.
  EXPECT_GT(small, 16 * 16 * 28 * 28 * 4);
  EXPECT_GT(large, 3 * small) << "batch 16: " << small << " B, batch 64: " << large << " B";
}

}  // namespace
}  // namespace speedbench::measure
