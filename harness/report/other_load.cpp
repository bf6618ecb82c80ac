#include "harness/report/other_load.h"

#include "harness/measure/statistics.h"
#include "harness/report/report_text.h"

namespace speedbench::report {

namespace {

std::string spread_text(const std::vector<double>& cores) {
  const auto spread = measure::summarize(cores);
  return "median " + format_number("%.2f", spread.median) + " cores, 90th percentile " +
         format_number("%.2f", spread.p90) + ", most " + format_number("%.2f", spread.max) +
         ", over " + std::to_string(cores.size()) + (cores.size() == 1 ? " run" : " runs");
}

}  // namespace

OtherLoad other_load_of_runs(const Results& results) {
  OtherLoad load;
  for (const auto& r : results.records) {
    if (r.status != RunStatus::kOk) continue;
    if (r.metrics.other_processes_busy_cores)
      load.busy_cores.push_back(*r.metrics.other_processes_busy_cores);
    if (r.metrics.stolen_cores) load.stolen_cores.push_back(*r.metrics.stolen_cores);
  }
  return load;
}

std::string other_load_text(const OtherLoad& load) {
  if (load.busy_cores.empty()) return "not measured (by builds before 2026-12-06)";
  return spread_text(load.busy_cores);
}

std::string steal_text(const OtherLoad& load) {
  if (load.stolen_cores.empty()) return "not measured apart (by builds before 2026-12-07)";
  return spread_text(load.stolen_cores);
}

nlohmann::json other_load_json(const OtherLoad& load) {
  if (load.busy_cores.empty()) return nullptr;
  const auto busy = measure::summarize(load.busy_cores);
  nlohmann::json stolen = nullptr;
  if (!load.stolen_cores.empty()) {
    const auto spread = measure::summarize(load.stolen_cores);
    stolen = {{"runs", load.stolen_cores.size()},
              {"median_cores", spread.median},
              {"p90_cores", spread.p90},
              {"max_cores", spread.max}};
  }
  return {{"runs", load.busy_cores.size()},
          {"median_busy_cores", busy.median},
          {"p90_busy_cores", busy.p90},
          {"max_busy_cores", busy.max},
          {"stolen", stolen}};
}

}  // namespace speedbench::report
