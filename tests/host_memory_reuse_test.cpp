// host_memory_reuse's mechanism: after keep_freed_host_memory(), 8 MiB blocks come from the heap
// (not an mmap each) and freeing them returns nothing to the kernel. Checked in a process of its
// own (a death test's child): the setting is process-wide and one-way.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "harness/techniques/host_memory_reuse.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace speedbench {
namespace {

#if defined(__GLIBC__)
// Exits 0 when 8 MiB blocks come from the heap, grown for them, and freeing them all leaves the
// heap as large (nothing trimmed back to the kernel); else says which failed and exits 1.
[[noreturn]] void check_freed_blocks_are_kept() {
  if (!keep_freed_host_memory()) {
    std::fprintf(stderr, "mallopt refused the thresholds\n");
    std::exit(1);
  }
  constexpr size_t kBlockBytes = 8 << 20;
  const auto before = mallinfo2();
  std::vector<char*> blocks;
  auto holding = before;
  while (holding.arena <= before.arena && blocks.size() < 256) {  // past the heap's free space
    blocks.push_back(static_cast<char*>(std::malloc(kBlockBytes)));
    blocks.back()[kBlockBytes - 1] = 1;  // in use
    holding = mallinfo2();
  }
  for (char* block : blocks) std::free(block);
  const auto after = mallinfo2();
  if (holding.hblks != before.hblks) {  // glibc's default, until its adaptive threshold rises
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
  GTEST_SKIP() << "AddressSanitizer's allocator replaces glibc's: no thresholds to set";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: the allocator's defaults
  EXPECT_EXIT(check_freed_blocks_are_kept(), ::testing::ExitedWithCode(0), "");
}
#else
TEST(HostMemoryReuseTest, IsRefusedWithoutGlibc) { EXPECT_FALSE(keep_freed_host_memory()); }
#endif

}  // namespace
}  // namespace speedbench
