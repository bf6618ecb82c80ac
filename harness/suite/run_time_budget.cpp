#include "harness/suite/run_time_budget.h"

#include <algorithm>

namespace speedbench {

void RunDurationEstimate::add(const std::string& workload, const std::string& variant,
                              double seconds) {
  by_variant_[{workload, variant}].add(seconds);
  by_workload_[workload].add(seconds);
  all_.add(seconds);
}

double RunDurationEstimate::expected_s(const std::string& workload,
                                       const std::string& variant) const {
  const auto variant_runs = by_variant_.find({workload, variant});
  if (variant_runs != by_variant_.end()) return variant_runs->second.value_s();
  const auto workload_runs = by_workload_.find(workload);
  if (workload_runs != by_workload_.end()) return workload_runs->second.value_s();
  return all_.count > 0 ? all_.value_s() : 0.0;
}

bool fits_in_budget(double budget_s, double elapsed_s, double expected_s, bool first_run) {
  return budget_s <= 0 || first_run || elapsed_s + expected_s <= budget_s;
}

SuiteTimeLeft suite_time_left(double budget_s, double elapsed_s, int64_t started, int64_t to_run) {
  const double at_pace_s = started > 0 ? elapsed_s / started * (to_run - started) : 0.0;
  const double budget_left_s = std::max(0.0, budget_s - elapsed_s);
  if (budget_s > 0 && budget_left_s < at_pace_s) return {budget_left_s, true};
  return {at_pace_s, false};
}

}  // namespace speedbench
