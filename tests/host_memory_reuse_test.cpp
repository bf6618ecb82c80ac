// host_memory_reuse's mechanism: after keep_freed_host_memory(), 64 MiB blocks come from the heap
// (not an mmap each: glibc's mmap threshold, at most 32 MiB, cannot keep them off) and freeing
// them returns nothing to the kernel. Checked in a process of its own (a death test's child): the
// setting is process-wide and one-way.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "harness/config/config_loader.h"
#include "harness/techniques/applicability.h"
#include "harness/techniques/host_memory_reuse.h"
#include "harness/train/train_loop.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace speedbench {
namespace {

#if defined(__GLIBC__)
// Exits 0 when 64 MiB blocks come from the heap, grown for them, and freeing them all leaves the
// heap as large (nothing trimmed back to the kernel); else says which failed and exits 1.
// `keep` applies the settings (or what a run calls, which must).
template <typename Keep>
[[noreturn]] void check_freed_blocks_are_kept(Keep keep) {
  keep();
  constexpr size_t kBlockBytes = size_t{64} << 20;  // above any mmap threshold glibc allows
  const auto before = mallinfo2();
  std::vector<char*> blocks;
  auto holding = before;
  // Until the heap grows (past its free space) or a block is mmapped instead.
  while (holding.arena <= before.arena && holding.hblks == before.hblks && blocks.size() < 64) {
    blocks.push_back(static_cast<char*>(std::malloc(kBlockBytes)));
    blocks.back()[kBlockBytes - 1] = 1;  // in use
    holding = mallinfo2();
  }
  for (char* block : blocks) std::free(block);
  const auto after = mallinfo2();
  if (holding.hblks != before.hblks) {  // glibc's default for blocks this large
    std::fprintf(stderr, "blocks were mmapped: %zu mmapped blocks -> %zu\n", before.hblks,
                 holding.hblks);
    std::exit(1);
  }
  if (holding.arena <= before.arena || after.arena < holding.arena) {
    std::fprintf(stderr, "the heap did not grow and stay: %zu -> %zu -> %zu bytes\n", before.arena,
                 holding.arena, after.arena);
    std::exit(1);
  }
  std::exit(0);
}

TEST(HostMemoryReuseTest, FreedLargeBlocksStayInTheHeapInsteadOfGoingBackToTheKernel) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator replaces glibc's: no mallopt settings to apply";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: the allocator's defaults
  EXPECT_EXIT(check_freed_blocks_are_kept([] {
                if (keep_freed_host_memory()) return;
                std::fprintf(stderr, "mallopt refused the settings\n");
                std::exit(1);
              }),
              ::testing::ExitedWithCode(0), "");
}

// Not a label: the settings a run applies before it trains include these.
TEST(HostMemoryReuseTest, ARunWithItOnKeepsFreedBlocks) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator replaces glibc's: no mallopt settings to apply";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto config = train_config_from_json({{"techniques", {{"host_memory_reuse", true}}}}, "t");
  config.threads = 1;
  EXPECT_EXIT(check_freed_blocks_are_kept([&] { apply_runtime_settings(config); }),
              ::testing::ExitedWithCode(0), "");
}
#endif

// A build whose malloc takes no mallopt settings (AddressSanitizer's, another C library's) records
// the technique as not applicable, with why, rather than crashing the run.
TEST(HostMemoryReuseTest, IsNotApplicableWhereTheAllocatorTakesNoSettings) {
  const auto config = train_config_from_json({{"techniques", {{"host_memory_reuse", true}}}}, "t");
  const auto reason = techniques_not_applicable_here(config);
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(reason, "");  // and the death tests above see the settings take
#else
  EXPECT_NE(reason.find("host_memory_reuse: this build's"), std::string::npos) << reason;
  EXPECT_FALSE(keep_freed_host_memory());
#endif
}

}  // namespace
}  // namespace speedbench
