// The exact CPU byte accounting: known allocations to the byte, and activation memory that
// grows with the batch; and the process's page faults, counted page by page.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <torch/torch.h>
#include <unistd.h>

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

// A page touched for the first time since it was mapped is a minor fault: 16 MiB mapped afresh
// and written page by page are 4096 of them (more: anything else the process touched meanwhile).
TEST(MinorPageFaultsTest, EachFreshlyMappedPageTouchedIsCounted) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  constexpr size_t kBytes = 16 << 20;
  void* mapped = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  const auto before = minor_page_faults();
  for (size_t at = 0; at < kBytes; at += page) static_cast<volatile char*>(mapped)[at] = 1;
  const auto after = minor_page_faults();
  EXPECT_GE(after - before, static_cast<int64_t>(kBytes / page));
  EXPECT_LT(after - before, static_cast<int64_t>(2 * kBytes / page));  // not every byte, nor KiB
  munmap(mapped, kBytes);
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
