// Exact accounting of the bytes LibTorch allocates on the CPU.
//
// A wrapping allocator installed with c10::SetCPUAllocator sees every CPU tensor allocation on
// every thread (DataLoader workers included), so a test can see activation memory change with
// the batch size to the byte. Memory that oneDNN or the BLAS library allocate with plain malloc
// for their own scratch space is invisible to it; peak RSS (peak_rss_bytes) covers that side.
#pragma once

#include <cstdint>

namespace speedbench::measure {

class CpuMemoryTracker {
 public:
  // Installs the tracking allocator (idempotent) and returns the process-wide tracker.
  static CpuMemoryTracker& install();

  int64_t current_bytes() const;
  int64_t peak_bytes() const;
  // Starts a new peak window at the current level (e.g. at the start of training).
  void reset_peak();
};

// Peak resident set size of this process so far, in bytes (getrusage).
int64_t peak_rss_bytes();

// Minor page faults of this process so far, every thread's (getrusage): a page touched for the
// first time since it was mapped, such as each page of a block malloc mmapped afresh. Their
// difference over a step is what host_memory_reuse removes.
int64_t minor_page_faults();

}  // namespace speedbench::measure
