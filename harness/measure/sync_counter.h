// Counts the host<->device synchronisations the harness itself forces (a .item() read of the
// loss, a blocking copy to the host). Each such place calls count_host_sync(), so a record can
// state syncs per step for the baseline and for sync_avoidance alike.
#pragma once

#include <cstdint>
#include <memory>

namespace speedbench::measure {

void count_host_sync();
int64_t host_sync_count();
void reset_host_sync_count();

// CUDA sync-debug mode: while an instance lives, LibTorch reports every synchronizing CUDA
// operation it performs (a .item(), a blocking copy to the host, ...) as a warning, and the
// instance counts those warnings; other warnings pass on. This sees syncs the harness did not
// ask for (inside LibTorch's ops), which the counter above cannot. The mode and the warning
// handler are restored at destruction.
class DeviceSyncCounter {
 public:
  virtual ~DeviceSyncCounter() = default;
  virtual int64_t count() const = 0;
};

// harness/cuda/cuda_sync_debug.cpp; throws std::runtime_error in a build without CUDA code.
std::unique_ptr<DeviceSyncCounter> start_cuda_sync_counter();

}  // namespace speedbench::measure
