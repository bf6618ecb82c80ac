#include "harness/train/run_metrics.h"

#include <stdexcept>

namespace speedbench {

std::string to_string(RunStatus status) {
  switch (status) {
    case RunStatus::kOk:
      return "ok";
    case RunStatus::kDiverged:
      return "diverged";
    case RunStatus::kOutOfMemory:
      return "oom";
    case RunStatus::kCrashed:
      return "crashed";
    case RunStatus::kNotApplicable:
      return "not_applicable";
  }
  return "crashed";
}

RunStatus run_status_from_string(const std::string& text) {
  for (auto status : {RunStatus::kOk, RunStatus::kDiverged, RunStatus::kOutOfMemory,
                      RunStatus::kCrashed, RunStatus::kNotApplicable}) {
    if (to_string(status) == text) return status;
  }
  throw std::invalid_argument("unknown run status '" + text + "'");
}

}  // namespace speedbench
