#include "harness/report/other_load.h"

#include "harness/measure/statistics.h"
#include "harness/report/report_text.h"

namespace speedbench::report {

std::vector<double> other_load_of_runs(const Results& results) {
  std::vector<double> busy_cores;
  for (const auto& r : results.records) {
    if (r.status == RunStatus::kOk && r.metrics.other_processes_busy_cores)
      busy_cores.push_back(*r.metrics.other_processes_busy_cores);
  }
  return busy_cores;
}

std::string other_load_text(const std::vector<double>& busy_cores) {
  if (busy_cores.empty()) return "not measured (by builds before 2026-12-06)";
  const auto spread = measure::summarize(busy_cores);
  return "median " + format_number("%.2f", spread.median) + " cores, 90th percentile " +
         format_number("%.2f", spread.p90) + ", most " + format_number("%.2f", spread.max) +
         ", over " + std::to_string(busy_cores.size()) + " runs";
}

nlohmann::json other_load_json(const std::vector<double>& busy_cores) {
  if (busy_cores.empty()) return nullptr;
  const auto spread = measure::summarize(busy_cores);
  return {{"runs", busy_cores.size()},
          {"median_busy_cores", spread.median},
          {"p90_busy_cores", spread.p90},
          {"max_busy_cores", spread.max}};
}

}  // namespace speedbench::report
