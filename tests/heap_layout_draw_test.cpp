// The heap layout draw (harness/train/heap_layout_draw.h): a pure function of the seed, spread
// log-uniformly over its range; a block of that size held until the draw goes; a run that
// records its draw and whose losses the layout does not touch.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include "harness/config/config_loader.h"
#include "harness/train/heap_layout_draw.h"
#include "harness/train/train_loop.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace speedbench {
namespace {

TEST(HeapLayoutDrawTest, TheSizeIsAFunctionOfTheSeedSpreadEvenlyOverItsOctaves) {
  constexpr int kSeeds = 1400;
  constexpr int kOctaves = 14;  // 64 B to 1 MiB
  static_assert(kMinHeapLayoutBytes << kOctaves == kMaxHeapLayoutBytes);
  std::array<int, kOctaves> per_octave{};
  std::set<int64_t> sizes;
  for (int64_t seed = 0; seed < kSeeds; ++seed) {
    const int64_t bytes = heap_layout_bytes(seed);
    ASSERT_GE(bytes, kMinHeapLayoutBytes) << "seed " << seed;
    ASSERT_LT(bytes, kMaxHeapLayoutBytes) << "seed " << seed;
    EXPECT_EQ(heap_layout_bytes(seed), bytes);  // the record's seed gives its layout back
    sizes.insert(bytes);
    ++per_octave[static_cast<size_t>(std::log2(static_cast<double>(bytes) / kMinHeapLayoutBytes))];
  }
  EXPECT_GT(sizes.size(), kSeeds * 9 / 10u);  // neighbouring seeds draw apart
  // Log-uniform: 100 a octave expected; a uniform draw would put 94% into the top four.
  for (int octave = 0; octave < kOctaves; ++octave) {
    EXPECT_GT(per_octave[octave], 60) << "octave " << octave;
    EXPECT_LT(per_octave[octave], 140) << "octave " << octave;
  }
  EXPECT_NE(heap_layout_bytes(-1), heap_layout_bytes(1));  // any int64 seed is a seed
}

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
size_t bytes_in_use() {
  const auto info = mallinfo2();
  return info.uordblks + info.hblkhd;  // the heap's blocks and the mmapped ones
}

// Counted by mallinfo2 only above the thread cache's sizes (about 1 KiB: cached blocks count as
// in use whether held or not), so the seeds here draw 4 KiB or more.
TEST(HeapLayoutDrawTest, HoldsABlockOfTheDrawnSizeUntilItGoes) {
  std::vector<int64_t> seeds;
  for (int64_t seed = 0; seeds.size() < 4; ++seed) {
    if (heap_layout_bytes(seed) >= 4096) seeds.push_back(seed);
  }
  for (const int64_t seed : seeds) {
    const size_t before = bytes_in_use();
    std::optional<HeapLayoutDraw> draw(seed);
    ASSERT_EQ(draw->bytes(), heap_layout_bytes(seed));
    const size_t holding = bytes_in_use();
    EXPECT_GE(holding, before + static_cast<size_t>(draw->bytes())) << "seed " << seed;
    draw.reset();
    EXPECT_LE(bytes_in_use() + static_cast<size_t>(heap_layout_bytes(seed)), holding)
        << "seed " << seed;
  }
}
#endif

// The draw moves blocks, not numbers: one held around a run leaves its losses bit for bit, and
// the run records its own (the seed's) draw.
TEST(HeapLayoutDrawTest, ARunRecordsItsDrawAndAnotherLayoutLeavesItsLossesAlone) {
  auto config = train_config_from_json({{"data", {{"train_samples", 256}, {"test_samples", 128}}},
                                        {"batch_size", 64},
                                        {"warmup_steps", 1},
                                        {"eval_every_steps", 4},
                                        {"progress_every_s", 0}},
                                       "test");
  config.deterministic = true;
  config.seed = 11;
  const auto plain = train(config);
  ASSERT_EQ(plain.status, RunStatus::kOk) << plain.message;
  EXPECT_EQ(plain.metrics.heap_layout_bytes, heap_layout_bytes(11));
  for (const int64_t other_seed : {5, 8}) {
    ASSERT_NE(heap_layout_bytes(other_seed), heap_layout_bytes(11));
    const HeapLayoutDraw elsewhere(other_seed);
    const auto moved = train(config);
    EXPECT_EQ(moved.metrics.step_losses, plain.metrics.step_losses);  // exact
    EXPECT_EQ(moved.metrics.final_test_loss, plain.metrics.final_test_loss);
    EXPECT_EQ(moved.metrics.heap_layout_bytes, plain.metrics.heap_layout_bytes);
  }
}

}  // namespace
}  // namespace speedbench
