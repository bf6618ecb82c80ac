// Beyond the list, host_memory_reuse: glibc malloc hands large freed blocks back to the kernel
// (each block above an adaptive threshold is its own mmap, and the heap's free top is trimmed),
// so a later step's tensors fault their pages in again -> freed host memory kept for reuse.
// Claim: jemalloc or TCMalloc "can get better performance by reusing memory as much as possible
// than default malloc" (PyTorch performance tuning guide, CPU: "Switch memory allocator"). A
// running process cannot swap its allocator (that is LD_PRELOAD's job), so the harness tunes
// glibc's own to the same end: M_MMAP_THRESHOLD at its 32 MiB maximum (smaller blocks come from
// the heap) and M_TRIM_THRESHOLD past any heap here (its top is kept). Measured on a 40-step row
// LSTM run (2 threads, 2 cores): default glibc put two slow steps (+40-60%) at fixed places of
// most runs, step-time CV 11-16%; with these thresholds, none, CV 2-4%. The trim threshold alone
// made steps 2x slower: setting it switches the adaptive mmap threshold off, so every block above
// 128 KiB was mmapped and unmapped each step. Process-wide and one-way (glibc's adaptive threshold
// stays off once a threshold is set): each suite run is a process of its own.
#pragma once

#include <string>

namespace speedbench {

// Why this build cannot keep freed host memory: its malloc is not glibc's (another C library, or
// AddressSanitizer's, whose mallopt takes nothing); "" where it can.
std::string host_memory_reuse_not_applicable_reason();

// Sets the two thresholds; false where the C library is not glibc or refuses a value.
bool keep_freed_host_memory();

}  // namespace speedbench
