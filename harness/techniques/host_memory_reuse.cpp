#include "harness/techniques/host_memory_reuse.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace speedbench {

bool keep_freed_host_memory() {
#if defined(__GLIBC__)
  // glibc's largest mmap threshold on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX); a larger one is refused.
  constexpr int kLargestMmapThreshold = 32 * 1024 * 1024;
  constexpr int kNeverTrim = 1 << 30;  // 1 GiB of free heap top before any is returned
  return mallopt(M_MMAP_THRESHOLD, kLargestMmapThreshold) == 1 &&
         mallopt(M_TRIM_THRESHOLD, kNeverTrim) == 1;
#else
  return false;
#endif
}

}  // namespace speedbench
