#include "harness/report/cpu_contention.h"

#include "harness/measure/statistics.h"
#include "harness/report/report_text.h"

namespace speedbench::report {

namespace {

// "median 0.01 cores, 90th percentile 0.02, most 0.03, over 111 runs"
std::string spread_text(const std::vector<double>& values, const std::string& unit) {
  const auto spread = measure::summarize(values);
  return "median " + format_number("%.2f", spread.median) + " " + unit + ", 90th percentile " +
         format_number("%.2f", spread.p90) + ", most " + format_number("%.2f", spread.max) +
         ", over " + std::to_string(values.size()) + (values.size() == 1 ? " run" : " runs");
}

// {"runs": N, "median_<unit>": ..., "p90_<unit>": ..., "max_<unit>": ...}, or null where empty.
nlohmann::json spread_json(const std::vector<double>& values, const std::string& unit) {
  if (values.empty()) return nullptr;
  const auto spread = measure::summarize(values);
  return {{"runs", values.size()},
          {"median_" + unit, spread.median},
          {"p90_" + unit, spread.p90},
          {"max_" + unit, spread.max}};
}

}  // namespace

CpuContention cpu_contention_of_runs(const Results& results) {
  CpuContention contention;
  for (const auto& r : results.records) {
    if (r.status != RunStatus::kOk) continue;
    if (r.metrics.other_processes_busy_cores)
      contention.busy_cores.push_back(*r.metrics.other_processes_busy_cores);
    if (r.metrics.stolen_cores) contention.stolen_cores.push_back(*r.metrics.stolen_cores);
    if (r.metrics.cpu_wait_threads)
      contention.cpu_wait_threads.push_back(*r.metrics.cpu_wait_threads);
    if (r.metrics.quota_throttled_share)
      contention.quota_throttled_share.push_back(*r.metrics.quota_throttled_share);
  }
  return contention;
}

std::string other_load_text(const CpuContention& contention) {
  if (contention.busy_cores.empty()) return "not measured (by builds before 2026-12-06)";
  return spread_text(contention.busy_cores, "cores");
}

std::string steal_text(const CpuContention& contention) {
  if (contention.stolen_cores.empty()) return "not measured apart (by builds before 2026-12-07)";
  return spread_text(contention.stolen_cores, "cores");
}

std::string cpu_wait_text(const CpuContention& contention) {
  if (contention.cpu_wait_threads.empty()) return "not measured (by builds before 2026-12-07)";
  return spread_text(contention.cpu_wait_threads, "threads");
}

nlohmann::json other_load_json(const CpuContention& contention) {
  auto load = spread_json(contention.busy_cores, "busy_cores");
  if (load.is_null()) return load;
  load["stolen"] = spread_json(contention.stolen_cores, "cores");
  return load;
}

nlohmann::json cpu_wait_json(const CpuContention& contention) {
  return spread_json(contention.cpu_wait_threads, "threads");
}

std::string quota_throttling_text(const CpuContention& contention) {
  if (contention.quota_throttled_share.empty()) return "no CPU quota (or builds before 2026-12-07)";
  return spread_text(contention.quota_throttled_share, "of the quota's periods");
}

nlohmann::json quota_throttling_json(const CpuContention& contention) {
  return spread_json(contention.quota_throttled_share, "share");
}

}  // namespace speedbench::report
