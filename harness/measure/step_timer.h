// Times training steps. A step runs from its start (before its batch goes to the device) to the
// moment the next batch has been fetched, so a slow loader shows in the step it delays.
//   host clock (CPU): CPU kernels finish before the host moves on, so the host clock is the
//     step's time and the loop waits for nothing extra.
//   CUDA events: the host only queues kernels. An event is recorded at each end of a step and
//     the step is the device time between the two, so nothing waits for the device inside the
//     loop; take_step_ms() waits once, for the newest event (at an evaluation and at the end).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace speedbench::measure {

class StepTimer {
 public:
  virtual ~StepTimer() = default;
  virtual void start_step() = 0;
  virtual void end_step() = 0;
  // The durations (ms) of the steps ended since the previous call, oldest first.
  virtual std::vector<double> take_step_ms() = 0;
  // "host_clock" or "cuda_events", for the record.
  virtual std::string source() const = 0;
};

// The host clock on the CPU, CUDA events on CUDA device `device_index`.
std::unique_ptr<StepTimer> make_step_timer(bool on_cuda, int device_index);

// harness/cuda/cuda_step_timer.cpp; throws std::runtime_error in a build without CUDA code.
std::unique_ptr<StepTimer> make_cuda_step_timer(int device_index);

}  // namespace speedbench::measure
