#include "harness/techniques/host_memory_reuse.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace speedbench {

std::string host_memory_reuse_not_applicable_reason() {
#if defined(__SANITIZE_ADDRESS__)
  return "host_memory_reuse: this build's malloc is AddressSanitizer's, which takes no glibc "
         "mallopt settings";
#elif !defined(__GLIBC__)
  return "host_memory_reuse: this build's C library is not glibc (no mallopt settings)";
#else
  return "";
#endif
}

bool keep_freed_host_memory() {
#if defined(__GLIBC__)
  constexpr int kNoMmappedBlocks = 0;  // the heap serves blocks of any size
  constexpr int kNeverTrim = 1 << 30;  // 1 GiB of free heap top before any is returned
  return mallopt(M_MMAP_MAX, kNoMmappedBlocks) == 1 && mallopt(M_TRIM_THRESHOLD, kNeverTrim) == 1;
#else
  return false;
#endif
}

}  // namespace speedbench
