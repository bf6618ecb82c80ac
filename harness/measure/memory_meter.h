// Tensor memory on the device a run trains on, with a resettable peak.
//   CPU:  the tracking allocator (cpu_memory_tracker.h): exact bytes of live CPU tensors.
//   CUDA: the caching allocator's statistics: bytes of live tensors ("allocated") and the
//         bytes the allocator holds from the driver ("reserved", allocated + its cache).
#pragma once

#include <cstdint>
#include <memory>

namespace speedbench::measure {

class MemoryMeter {
 public:
  virtual ~MemoryMeter() = default;
  virtual int64_t current_bytes() const = 0;
  virtual int64_t peak_bytes() const = 0;
  // 0 on the CPU, which has no cache.
  virtual int64_t peak_reserved_bytes() const = 0;
  // Starts a new peak window at the current level.
  virtual void reset_peak() = 0;
  // Hands cached blocks back to the driver (CUDA), e.g. after an out-of-memory probe, so the
  // next window starts from what is really live.
  virtual void release_cached() {}
};

// The CPU tracker, or the caching allocator of CUDA device `device_index`.
std::unique_ptr<MemoryMeter> make_memory_meter(bool on_cuda, int device_index);

// harness/cuda/cuda_memory_meter.cpp; throws std::runtime_error in a build without CUDA code.
std::unique_ptr<MemoryMeter> make_cuda_memory_meter(int device_index);

}  // namespace speedbench::measure
