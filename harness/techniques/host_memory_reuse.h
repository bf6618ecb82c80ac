// Beyond the list, host_memory_reuse: glibc malloc hands large freed blocks back to the kernel
// (each block above an adaptive threshold is its own mmap, and the heap's free top is trimmed),
// so a later step's tensors fault their pages in again -> freed host memory kept for reuse.
// Claim: jemalloc or TCMalloc "can get better performance by reusing memory as much as possible
// than default malloc" (PyTorch performance tuning guide, CPU: "Switch memory allocator"). A
// running process cannot swap its allocator (that is LD_PRELOAD's job), so the harness tunes
// glibc's own to the same end: M_MMAP_MAX 0 (every block comes from the heap, none is an mmap of
// its own) and M_TRIM_THRESHOLD past any heap here (its free top is kept).
// Why not only a higher mmap threshold (the first version): glibc caps it at 32 MiB, and the
// character LSTM of the CPU reference frees and maps again a 63 MiB block every step (a tensor
// of oneDNN's LSTM layer, mkldnn_rnn_layer), 16k page faults, until an evaluation happens to
// leave a heap top large enough to serve it (its steps then drop from ~70 to ~53 ms). Without
// mmaps its steps are ~54 ms from the first, and the run takes about a tenth of the default's
// page faults (1.52M -> 0.14M).
// The trim threshold alone made steps 2x slower (setting it switches the adaptive mmap threshold
// off, so every block above 128 KiB was mapped and unmapped each step). Process-wide and one-way:
// each suite run is a process of its own.
#pragma once

#include <string>

namespace speedbench {

// Why this build cannot keep freed host memory: its malloc is not glibc's (another C library, or
// AddressSanitizer's, whose mallopt takes nothing); "" where it can.
std::string host_memory_reuse_not_applicable_reason();

// Sets both; false where the C library is not glibc or refuses a value.
bool keep_freed_host_memory();

}  // namespace speedbench
