#include "harness/techniques/applicability.h"

#include "harness/techniques/amp.h"
#include "harness/techniques/host_memory_reuse.h"
#include "harness/techniques/registry.h"

namespace speedbench {

std::string techniques_not_applicable_here(const TrainConfig& config) {
  if (auto reason = enabled_techniques_not_applicable_reason(config); !reason.empty())
    return reason;
  if (config.techniques.host_memory_reuse) {
    if (auto reason = host_memory_reuse_not_applicable_reason(); !reason.empty()) return reason;
  }
  return amp_not_applicable_reason(config);
}

}  // namespace speedbench
