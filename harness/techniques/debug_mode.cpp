#include "harness/techniques/debug_mode.h"

#include <torch/csrc/autograd/anomaly_mode.h>
#include <torch/csrc/autograd/profiler_legacy.h>

namespace speedbench {

DebugModeGuard::DebugModeGuard(const std::string& mode) : mode_(mode) {
  if (mode_ == "anomaly") {
    previous_anomaly_ = torch::autograd::AnomalyMode::is_enabled();
    torch::autograd::AnomalyMode::set_enabled(true);
  } else if (mode_ == "profiler") {
    torch::autograd::profiler::enableProfilerLegacy(
        torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
  }
}

DebugModeGuard::~DebugModeGuard() {
  if (mode_ == "anomaly") {
    torch::autograd::AnomalyMode::set_enabled(previous_anomaly_);
  } else if (mode_ == "profiler") {
    torch::autograd::profiler::disableProfilerLegacy();  // the events are dropped
  }
}

bool is_anomaly_nan_report(const std::string& message) {
  return message.find("' returned nan values in its ") != std::string::npos;
}

}  // namespace speedbench
