#include "harness/measure/memory_meter.h"

#include "harness/measure/cpu_memory_tracker.h"

namespace speedbench::measure {

namespace {

class CpuMemoryMeter final : public MemoryMeter {
 public:
  int64_t current_bytes() const override { return tracker_.current_bytes(); }
  int64_t peak_bytes() const override { return tracker_.peak_bytes(); }
  int64_t peak_reserved_bytes() const override { return 0; }
  void reset_peak() override { tracker_.reset_peak(); }

 private:
  CpuMemoryTracker& tracker_ = CpuMemoryTracker::install();
};

}  // namespace

std::unique_ptr<MemoryMeter> make_memory_meter(bool on_cuda, int device_index) {
  if (on_cuda) return make_cuda_memory_meter(device_index);
  return std::make_unique<CpuMemoryMeter>();
}

}  // namespace speedbench::measure
