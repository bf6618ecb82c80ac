// Step times from CUDA events (see harness/measure/step_timer.h). CUDA builds only.
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <utility>

#include "harness/measure/step_timer.h"

namespace speedbench::measure {

namespace {

class CudaEventStepTimer final : public StepTimer {
 public:
  explicit CudaEventStepTimer(int device_index)
      : device_(static_cast<c10::DeviceIndex>(device_index)) {}

  void start_step() override { started_ = record(); }
  // A step that never ends (a diverged run stops mid-step) is simply never timed.
  void end_step() override { pending_.emplace_back(std::move(started_), record()); }

  std::vector<double> take_step_ms() override {
    std::vector<double> finished;
    if (pending_.empty()) return finished;
    pending_.back().second.synchronize();  // events complete in stream order: the newest is last
    for (auto& [start, end] : pending_) finished.push_back(start.elapsed_time(end));
    pending_.clear();
    return finished;
  }

  std::string source() const override { return "cuda_events"; }

 private:
  // An event with timing on (ATen's default has it off), recorded on the current stream.
  c10::cuda::CUDAEvent record() {
    c10::cuda::CUDAGuard guard(device_);
    c10::cuda::CUDAEvent event(cudaEventDefault);
    event.record(c10::cuda::getCurrentCUDAStream(device_));
    return event;
  }

  c10::DeviceIndex device_;
  c10::cuda::CUDAEvent started_;
  std::vector<std::pair<c10::cuda::CUDAEvent, c10::cuda::CUDAEvent>> pending_;
};

}  // namespace

std::unique_ptr<StepTimer> make_cuda_step_timer(int device_index) {
  return std::make_unique<CudaEventStepTimer>(device_index);
}

}  // namespace speedbench::measure
