// CUDA measurement in a build without CUDA code: a CUDA run is recorded as not_applicable before
// it gets here (no device), so reaching one of these is a bug.
#include <stdexcept>

#include "harness/measure/memory_meter.h"
#include "harness/measure/step_timer.h"
#include "harness/measure/sync_counter.h"

#if !SPEEDBENCH_WITH_CUDA
namespace speedbench::measure {

namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw std::runtime_error(std::string(what) + ": this build of speedbench has no CUDA code");
}
}  // namespace

std::unique_ptr<StepTimer> make_cuda_step_timer(int) { no_cuda("CUDA event timing"); }
std::unique_ptr<MemoryMeter> make_cuda_memory_meter(int) { no_cuda("CUDA memory statistics"); }
std::unique_ptr<DeviceSyncCounter> start_cuda_sync_counter() { no_cuda("CUDA sync-debug mode"); }

}  // namespace speedbench::measure
#endif
