#include "harness/techniques/applicability.h"

#include "harness/techniques/amp.h"
#include "harness/techniques/registry.h"

namespace speedbench {

std::string techniques_not_applicable_here(const TrainConfig& config) {
  const auto reason = enabled_techniques_not_applicable_reason(config);
  return reason.empty() ? amp_not_applicable_reason(config) : reason;
}

}  // namespace speedbench
