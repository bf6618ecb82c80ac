// Tip 13, debug_off: anomaly detection / the autograd profiler on -> off.
// Claim: debug modes slow training; turn them off for real runs (PyTorch performance tuning
// guide, "Disable debugging APIs"). The baseline of this comparison is a run with
// debug_mode "anomaly" or "profiler"; the technique is debug_mode "off".
#pragma once

#include <string>

namespace speedbench {

// Enables the debug mode for its lifetime: "anomaly" (autograd anomaly detection: each backward
// op is checked for NaN and records its forward trace) or "profiler" (the legacy autograd
// profiler records every op); "off" does nothing.
class DebugModeGuard {
 public:
  explicit DebugModeGuard(const std::string& mode);
  ~DebugModeGuard();
  DebugModeGuard(const DebugModeGuard&) = delete;
  DebugModeGuard& operator=(const DebugModeGuard&) = delete;

 private:
  std::string mode_;
  bool previous_anomaly_ = false;
};

// Whether an error's text is anomaly detection's report of a backward op that returned NaN
// ("Function 'LogSoftmaxBackward0' returned nan values in its 0th output.").
bool is_anomaly_nan_report(const std::string& message);

}  // namespace speedbench
