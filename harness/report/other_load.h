// What others took of the CPUs of a folder's runs while they trained, as each run measured it
// (harness/measure/other_processes_cpu.h): the cores other processes kept busy
// (metrics.other_processes_busy_cores; records before 2026-12-06 did not measure it) and the
// cores the hypervisor gave to other guests (metrics.stolen_cores, steal; records before
// 2026-12-07 counted it with the other processes). The report says it for its folder, `compare`
// for both: a folder whose runs shared the machine with other work ran slower for that, not for
// its build. Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/report/comparisons.h"

namespace speedbench::report {

// One value per ok run that measured it, in record order.
struct OtherLoad {
  std::vector<double> busy_cores;    // other processes
  std::vector<double> stolen_cores;  // the hypervisor
};

OtherLoad other_load_of_runs(const Results& results);

// "median 0.01 cores, 90th percentile 0.02, most 0.03, over 111 runs" of `load.busy_cores`; where
// it is empty, "not measured (by builds before 2026-12-06)".
std::string other_load_text(const OtherLoad& load);
// The same of `load.stolen_cores`; where it is empty, "not measured apart (by builds before
// 2026-12-07)".
std::string steal_text(const OtherLoad& load);

// {"runs": 111, "median_busy_cores": 0.01, "p90_busy_cores": 0.02, "max_busy_cores": 0.03,
//  "stolen": {"runs": 111, "median_cores": 0, "p90_cores": 0, "max_cores": 0}}; "stolen" null
// where no run measured steal apart, and the whole null where no run measured other load.
nlohmann::json other_load_json(const OtherLoad& load);

}  // namespace speedbench::report
