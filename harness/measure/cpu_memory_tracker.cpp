// The tracking allocator behind CpuMemoryTracker. Each block carries a 64-byte header holding
// its size, so freeing needs no lookup table and no lock; counters are atomics.
#include "harness/measure/cpu_memory_tracker.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <sys/resource.h>

#include <atomic>
#include <mutex>

namespace speedbench::measure {
namespace {

// Keeps the payload 64-byte aligned, as c10's own CPU allocator does.
constexpr size_t kHeaderBytes = 64;

std::atomic<int64_t> g_current_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};

void raise_peak(int64_t candidate) {
  int64_t peak = g_peak_bytes.load(std::memory_order_relaxed);
  while (candidate > peak &&
         !g_peak_bytes.compare_exchange_weak(peak, candidate, std::memory_order_relaxed)) {
  }
}

void tracked_free(void* payload) {
  if (payload == nullptr) return;
  auto* block = static_cast<char*>(payload) - kHeaderBytes;
  const auto size = *reinterpret_cast<int64_t*>(block);
  g_current_bytes.fetch_sub(size, std::memory_order_relaxed);
  c10::free_cpu(block);
}

class TrackingCpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    auto* block = static_cast<char*>(c10::alloc_cpu(nbytes + kHeaderBytes));
    *reinterpret_cast<int64_t*>(block) = static_cast<int64_t>(nbytes);
    const auto now = g_current_bytes.fetch_add(nbytes, std::memory_order_relaxed) + nbytes;
    raise_peak(now);
    void* payload = block + kHeaderBytes;
    // data == context: raw_allocate()/raw_deleter() callers rely on it.
    return {payload, payload, &tracked_free, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &tracked_free; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
};

}  // namespace

CpuMemoryTracker& CpuMemoryTracker::install() {
  static TrackingCpuAllocator allocator;
  static CpuMemoryTracker tracker;
  static std::once_flag installed;
  // Priority above c10's default registration, so a later default registration cannot undo it.
  std::call_once(installed, [] { c10::SetCPUAllocator(&allocator, /*priority=*/100); });
  return tracker;
}

int64_t CpuMemoryTracker::current_bytes() const { return g_current_bytes.load(); }
int64_t CpuMemoryTracker::peak_bytes() const { return g_peak_bytes.load(); }
void CpuMemoryTracker::reset_peak() { g_peak_bytes.store(g_current_bytes.load()); }

int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // ru_maxrss is in KiB on Linux
}

int64_t minor_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_minflt);
}

}  // namespace speedbench::measure
