#include "harness/measure/step_timer.h"

#include <chrono>
#include <utility>

namespace speedbench::measure {

namespace {

class HostStepTimer final : public StepTimer {
 public:
  void start_step() override { start_ = Clock::now(); }
  void end_step() override {
    finished_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start_).count());
  }
  std::vector<double> take_step_ms() override { return std::exchange(finished_, {}); }
  std::string source() const override { return "host_clock"; }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
  std::vector<double> finished_;
};

}  // namespace

std::unique_ptr<StepTimer> make_step_timer(bool on_cuda, int device_index) {
  if (on_cuda) return make_cuda_step_timer(device_index);
  return std::make_unique<HostStepTimer>();
}

}  // namespace speedbench::measure
