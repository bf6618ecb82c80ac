// Device memory from the CUDA caching allocator's statistics (see harness/measure/memory_meter.h).
// CUDA builds only.
#include <c10/cuda/CUDACachingAllocator.h>

#include "harness/measure/memory_meter.h"

namespace speedbench::measure {

namespace {

namespace allocator = c10::cuda::CUDACachingAllocator;
constexpr auto kAllPools = static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE);

class CudaMemoryMeter final : public MemoryMeter {
 public:
  explicit CudaMemoryMeter(int device_index)
      : device_(static_cast<c10::DeviceIndex>(device_index)) {}

  int64_t current_bytes() const override { return stats().allocated_bytes[kAllPools].current; }
  int64_t peak_bytes() const override { return stats().allocated_bytes[kAllPools].peak; }
  int64_t peak_reserved_bytes() const override { return stats().reserved_bytes[kAllPools].peak; }
  void reset_peak() override { allocator::resetPeakStats(device_); }
  void release_cached() override { allocator::emptyCache(); }

 private:
  c10::CachingDeviceAllocator::DeviceStats stats() const {
    return allocator::getDeviceStats(device_);
  }

  c10::DeviceIndex device_;
};

}  // namespace

std::unique_ptr<MemoryMeter> make_cuda_memory_meter(int device_index) {
  return std::make_unique<CudaMemoryMeter>(device_index);
}

}  // namespace speedbench::measure
