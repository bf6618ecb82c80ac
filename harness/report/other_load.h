// How busy other processes kept the machine while a folder's runs trained, as each run measured
// it (metrics.other_processes_busy_cores, harness/measure/other_processes_cpu.h; records before
// 2026-12-06 did not). The report says it for its folder, `compare` for both: a folder whose
// runs shared the machine with other work ran slower for that, not for its build. Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/report/comparisons.h"

namespace speedbench::report {

// The measure of every ok run that has one, in record order.
std::vector<double> other_load_of_runs(const Results& results);

// "median 0.01 cores, 90th percentile 0.02, most 0.03, over 111 runs"; where `busy_cores` is
// empty, "not measured (by builds before 2026-12-06)".
std::string other_load_text(const std::vector<double>& busy_cores);

// {"runs": 111, "median_busy_cores": 0.01, "p90_busy_cores": 0.02, "max_busy_cores": 0.03};
// null where `busy_cores` is empty.
nlohmann::json other_load_json(const std::vector<double>& busy_cores);

}  // namespace speedbench::report
