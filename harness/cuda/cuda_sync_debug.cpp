// Counts synchronizing CUDA operations with CUDA sync-debug mode (harness/measure/sync_counter.h).
// CUDA builds only.
#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstring>

#include "harness/measure/sync_counter.h"

namespace speedbench::measure {

namespace {

// The text of c10::cuda::warn_or_error_on_sync()'s warning.
constexpr const char* kSyncWarning = "called a synchronizing CUDA operation";

class SyncWarningCounter final : public DeviceSyncCounter, public c10::WarningHandler {
 public:
  SyncWarningCounter()
      : previous_handler_(c10::WarningUtils::get_warning_handler()),
        previous_mode_(c10::cuda::warning_state().get_sync_debug_mode()) {
    c10::WarningUtils::set_warning_handler(this);
    c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_WARN);
  }
  ~SyncWarningCounter() override {
    c10::cuda::warning_state().set_sync_debug_mode(previous_mode_);
    c10::WarningUtils::set_warning_handler(previous_handler_);
  }

  int64_t count() const override { return count_.load(std::memory_order_relaxed); }

  void process(const c10::Warning& warning) override {
    if (std::strstr(warning.msg().c_str(), kSyncWarning) != nullptr) {
      count_.fetch_add(1, std::memory_order_relaxed);
    } else if (previous_handler_ != nullptr) {
      previous_handler_->process(warning);
    }
  }

 private:
  c10::WarningHandler* previous_handler_;
  c10::cuda::SyncDebugMode previous_mode_;
  std::atomic<int64_t> count_{0};
};

}  // namespace

std::unique_ptr<DeviceSyncCounter> start_cuda_sync_counter() {
  return std::make_unique<SyncWarningCounter>();
}

}  // namespace speedbench::measure
